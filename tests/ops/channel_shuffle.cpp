// shuffle_channel / channel_shuffle against a reshape-transpose written as a
// plain loop: several group counts, NCHW and NHWC, an int dtype; channels the
// groups do not divide and bad attributes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_channel_shuffle_test {

namespace {
// X as [N, g, C/g, S] transposed to [N, C/g, g, S] (S the spatial positions);
// NHWC: [N, S, g, C/g] to [N, S, C/g, g].
std::vector<float> baseline(std::span<const float> x, std::int64_t n, std::int64_t c,
                            std::int64_t s, std::int64_t g, bool nhwc) {
    std::vector<float> y(x.size());
    const auto per = c / g;
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t gi = 0; gi < g; ++gi)
            for (std::int64_t k = 0; k < per; ++k)
                for (std::int64_t p = 0; p < s; ++p) {
                    const auto in_c = gi * per + k, out_c = k * g + gi;
                    const auto src = nhwc ? (b * s + p) * c + in_c : (b * c + in_c) * s + p;
                    const auto dst = nhwc ? (b * s + p) * c + out_c : (b * c + out_c) * s + p;
                    y[static_cast<std::size_t>(dst)] = x[static_cast<std::size_t>(src)];
                }
    return y;
}
}  // namespace

TEST_CASE("shuffle_channel and channel_shuffle match the reshape-transpose baseline") {
    std::uint32_t seed = 1;
    for (std::string type : {"shuffle_channel", "channel_shuffle"})
        for (bool nhwc : {false, true}) {
            if (nhwc && type == "shuffle_channel") continue;  // NCHW only
            for (const auto& dims : std::vector<std::array<std::int64_t, 5>>{{1, 4, 2, 2, 2},
                                                                             {2, 6, 3, 1, 3},
                                                                             {1, 6, 2, 3, 2},
                                                                             {1, 5, 1, 2, 1},
                                                                             {1, 8, 1, 1, 8},
                                                                             {1, 4, 0, 2, 2}}) {
                const std::int64_t n = dims[0], c = dims[1], h = dims[2], w = dims[3], g = dims[4];
                CAPTURE(type);
                CAPTURE(nhwc);
                CAPTURE(g);
                auto x =
                    test::random_tensor(nhwc ? shape_t{n, h, w, c} : shape_t{n, c, h, w}, seed++);
                attr_map a;
                if (type == "shuffle_channel") {
                    a.set("group", g);
                } else {
                    a.set("groups", g);
                    a.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
                }
                auto out = invoke(type, a, named_tensors{}.add("X", x), {{"Out", 1}});
                CHECK(out.get("Out").shape() == x.shape());
                CHECK(test::max_abs_diff(out.get("Out").span<float>(),
                                         baseline(x.span<float>(), n, c, h * w, g, nhwc)) == 0);
            }
        }
}

TEST_CASE("channel_shuffle of int64 values: two groups of three channels interleave") {
    auto x = tensor::from<std::int64_t>({1, 6, 1, 1}, std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
    attr_map a;
    a.set("groups", 2);
    auto r = invoke("channel_shuffle", a, named_tensors{}.add("X", x), {{"Out", 1}});
    auto v = r.get("Out").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(v.begin(), v.end()) ==
          std::vector<std::int64_t>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("channel_shuffle names bad input") {
    attr_map a;
    a.set("groups", 4);
    CHECK_THROWS_WITH_AS(
        invoke("channel_shuffle", a, named_tensors{}.add("X", test::random_tensor({1, 6, 2, 2}, 1)),
               {{"Out", 1}}),
        doctest::Contains("the channels of X (6) are not a multiple of the 4 groups"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("channel_shuffle", a, named_tensors{}.add("X", test::random_tensor({4, 2, 2}, 1)),
               {{"Out", 1}}),
        doctest::Contains("X must be 4-D"), shape_error);
    a.set("data_format", std::string("NCDHW"));
    CHECK_THROWS_WITH_AS(invoke("channel_shuffle", a, named_tensors{}, {{"Out", 1}}),
                         doctest::Contains("data_format 'NCDHW' is not supported"),
                         unsupported_error);
    attr_map b;
    b.set("group", 0);
    CHECK_THROWS_WITH_AS(invoke("shuffle_channel", b, named_tensors{}, {{"Out", 1}}),
                         doctest::Contains("group 0 must be positive"), unsupported_error);
}

}  // namespace ops_channel_shuffle_test
