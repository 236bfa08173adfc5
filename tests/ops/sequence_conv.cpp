// sequence_conv against a plain context projection and matmul: several
// context windows (before, around, after the row), sequences of 0, 1 and
// several rows; unsupported attributes and bad shapes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_sequence_conv_test {

namespace {
attr_map attrs(std::int64_t length, std::int64_t start) {
    attr_map a;
    a.set("contextLength", static_cast<std::int32_t>(length));
    a.set("contextStart", static_cast<std::int32_t>(start));
    a.set("contextStride", 1);
    a.set("paddingTrainable", false);
    return a;
}

std::vector<float> baseline(const tensor& x, const tensor& f, const std::vector<std::int64_t>& off,
                            std::int64_t length, std::int64_t start) {
    const auto d = x.shape()[1], m = f.shape()[1];
    const auto X = x.span<float>();
    const auto F = f.span<float>();
    std::vector<float> out(static_cast<std::size_t>(x.shape()[0] * m), 0.f);
    for (std::size_t s = 0; s + 1 < off.size(); ++s)
        for (std::int64_t t = off[s]; t < off[s + 1]; ++t) {
            // The context vector of row t, then times F.
            std::vector<float> ctx(static_cast<std::size_t>(length * d), 0.f);
            for (std::int64_t j = 0; j < length; ++j) {
                const auto src = t + start + j;
                if (src >= off[s] && src < off[s + 1])
                    for (std::int64_t k = 0; k < d; ++k)
                        ctx[static_cast<std::size_t>(j * d + k)] =
                            X[static_cast<std::size_t>(src * d + k)];
            }
            for (std::int64_t c = 0; c < m; ++c) {
                double acc = 0;
                for (std::int64_t r = 0; r < length * d; ++r)
                    acc += double(ctx[static_cast<std::size_t>(r)]) *
                           F[static_cast<std::size_t>(r * m + c)];
                out[static_cast<std::size_t>(t * m + c)] = static_cast<float>(acc);
            }
        }
    return out;
}
}  // namespace

TEST_CASE("sequence_conv matches the baseline context projection") {
    const std::vector<std::vector<std::int64_t>> lods{{0, 4, 5, 5, 11}, {0, 1}, {0, 0}, {0, 7}};
    for (auto window :
         {std::pair<std::int64_t, std::int64_t>{3, -1}, {4, -2}, {1, 0}, {2, 1}, {5, -5}})
        for (const auto& off : lods) {
            const std::int64_t length = window.first, start = window.second;
            CAPTURE(length);
            CAPTURE(start);
            CAPTURE(lod_to_string({off}));
            auto x = test::random_tensor({off.back(), 3}, 5);
            x.set_lod({off});
            auto f = test::random_tensor({length * 3, 4}, 6);
            auto r = invoke("sequence_conv", attrs(length, start),
                            named_tensors{}.add("X", x).add("Filter", f), {{"Out", 1}});
            CHECK(r.get("Out").shape() == shape_t{off.back(), 4});
            CHECK(r.get("Out").lod() == lod_t{off});
            CHECK(test::max_rel_diff(r.get("Out").span<float>(),
                                     baseline(x, f, off, length, start)) < 1e-5);
        }
}

TEST_CASE("sequence_conv names what it does not handle") {
    auto x = test::random_tensor({4, 3}, 5);
    auto f = test::random_tensor({9, 2}, 6);
    auto run = [&](const attr_map& a, const tensor& xx, const tensor& ff) {
        return invoke("sequence_conv", a, named_tensors{}.add("X", xx).add("Filter", ff),
                      {{"Out", 1}});
    };
    CHECK_THROWS_WITH_AS(run(attrs(3, -1), x, f), doctest::Contains("has no LoD"), shape_error);
    x.set_lod({{0, 4}});
    CHECK_NOTHROW(run(attrs(3, -1), x, f));
    CHECK_THROWS_WITH_AS(run(attrs(4, -1), x, f),
                         doctest::Contains("Filter must be [contextLength * D, M] = [12, M]"),
                         shape_error);
    auto strided = attrs(3, -1);
    strided.set("contextStride", 2);
    CHECK_THROWS_WITH_AS(run(strided, x, f), doctest::Contains("contextStride 2"),
                         unsupported_error);
    auto trainable = attrs(3, -1);
    trainable.set("paddingTrainable", true);
    CHECK_THROWS_WITH_AS(run(trainable, x, f), doctest::Contains("paddingTrainable"),
                         unsupported_error);
    auto two = test::random_tensor({4, 3}, 5);
    two.set_lod({{0, 1, 2}, {0, 3, 4}});
    CHECK_THROWS_WITH_AS(run(attrs(3, -1), two, f), doctest::Contains("2 levels"), shape_error);
}

}  // namespace ops_sequence_conv_test
