// prelu against a plain loop over every mode (all, channel in NCHW and NHWC,
// element) and odd shapes; a wrong Alpha size and an unknown mode are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_prelu_test {

namespace {
// The alpha of element `idx` (row-major multi-index) by mode.
std::vector<float> baseline(const tensor& x, const tensor& alpha, const std::string& mode,
                            bool nhwc) {
    const auto& s = x.shape();
    std::vector<std::int64_t> idx(s.size(), 0);
    std::vector<float> out;
    auto xs = x.span<float>();
    auto al = alpha.span<float>();
    for (std::size_t f = 0; f < xs.size(); ++f) {
        std::size_t k = 0;
        if (mode == "channel") {
            k = static_cast<std::size_t>(idx[nhwc ? s.size() - 1 : 1]);
        } else if (mode == "element") {
            // Row-major index within one batch item.
            std::size_t e = 0;
            for (std::size_t d = 1; d < s.size(); ++d)
                e = e * static_cast<std::size_t>(s[d]) + static_cast<std::size_t>(idx[d]);
            k = e;
        }
        const float v = xs[f];
        out.push_back(v > 0 ? v : al[k] * v);
        for (std::size_t d = s.size(); d-- > 0;) {
            if (++idx[d] < s[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}
}  // namespace

TEST_CASE("prelu matches the baseline in every mode") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{2, 3}, shape_t{1, 5, 3, 2}, shape_t{2, 3, 4, 5},
                             shape_t{3, 4, 7}, shape_t{0, 3}}) {
        for (std::string mode : {"all", "channel", "element"})
            for (bool nhwc : {false, true}) {
                CAPTURE(to_string(s));
                CAPTURE(mode);
                CAPTURE(nhwc);
                std::int64_t n = 1;
                if (mode == "channel") n = s[nhwc ? s.size() - 1 : 1];
                if (mode == "element")
                    for (std::size_t d = 1; d < s.size(); ++d) n *= s[d];
                auto x = test::random_tensor(s, seed++, -4.f, 4.f);
                // Paddle's Alpha shapes: [1], [C], [1, dims after the batch].
                shape_t as{n};
                if (mode == "element") {
                    as.assign(s.begin(), s.end());
                    as[0] = 1;
                }
                auto alpha = test::random_tensor(as, seed++, -1.f, 1.f);
                attr_map a;
                a.set("mode", mode);
                a.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
                auto r = invoke("prelu", a, named_tensors{}.add("X", x).add("Alpha", alpha),
                                {{"Out", 1}});
                REQUIRE(r.get("Out").shape() == s);
                CHECK(test::max_abs_diff(r.get("Out").span<float>(),
                                         baseline(x, alpha, mode, nhwc)) == 0);
            }
    }
}

TEST_CASE("prelu names bad input") {
    auto x = test::random_tensor({2, 3, 4}, 1);
    attr_map a;
    a.set("mode", std::string("channel"));
    CHECK_THROWS_WITH_AS(
        invoke("prelu", a, named_tensors{}.add("X", x).add("Alpha", test::random_tensor({4}, 2)),
               {{"Out", 1}}),
        doctest::Contains("Alpha has shape [4] (4 values), mode channel of X [2,3,4] needs 3"),
        shape_error);
    a.set("mode", std::string("all"));
    CHECK_THROWS_WITH_AS(
        invoke("prelu", a, named_tensors{}.add("X", x).add("Alpha", test::random_tensor({3}, 2)),
               {{"Out", 1}}),
        doctest::Contains("mode all of X [2,3,4] needs 1"), shape_error);
    a.set("mode", std::string("channel"));
    CHECK_THROWS_WITH_AS(invoke("prelu", a,
                                named_tensors{}
                                    .add("X", test::random_tensor({5}, 1))
                                    .add("Alpha", test::random_tensor({1}, 2)),
                                {{"Out", 1}}),
                         doctest::Contains("mode channel needs X of rank >= 2"), shape_error);
    a.set("mode", std::string("row"));
    CHECK_THROWS_WITH_AS(
        invoke("prelu", a, named_tensors{}.add("X", x).add("Alpha", test::random_tensor({1}, 2)),
               {{"Out", 1}}),
        doctest::Contains("mode 'row' is not supported"), unsupported_error);
    a.set("mode", std::string("all"));
    a.set("data_format", std::string("NCDHW"));
    CHECK_THROWS_WITH_AS(
        invoke("prelu", a, named_tensors{}.add("X", x).add("Alpha", test::random_tensor({1}, 2)),
               {{"Out", 1}}),
        doctest::Contains("data_format 'NCDHW' is not supported"), unsupported_error);
}

}  // namespace ops_prelu_test
