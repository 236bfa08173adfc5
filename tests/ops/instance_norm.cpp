// instance_norm against a plain double-precision loop: ranks 2 to 5, with and
// without Scale/Bias, the SavedMean/SavedVariance outputs (1/sqrt(var+eps));
// bad shapes are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_instance_norm_test {

TEST_CASE("instance_norm matches the baseline") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{2, 3, 4, 5}, shape_t{3, 2}, shape_t{1, 2, 7},
                             shape_t{2, 2, 2, 3, 2}, shape_t{2, 3, 1, 1}})
        for (bool affine : {false, true}) {
            CAPTURE(to_string(s));
            CAPTURE(affine);
            const auto n = s[0], c = s[1];
            auto x = test::random_tensor(s, seed++, -2.f, 3.f);
            auto scale = test::random_tensor({c}, seed++);
            auto bias = test::random_tensor({c}, seed++);
            attr_map a;
            a.set("epsilon", 1e-3f);
            named_tensors in;
            in.add("X", x);
            if (affine) in.add("Scale", scale).add("Bias", bias);
            auto r =
                invoke("instance_norm", a, in, {{"Y", 1}, {"SavedMean", 1}, {"SavedVariance", 1}});
            REQUIRE(r.get("Y").shape() == s);
            REQUIRE(r.get("SavedMean").shape() == shape_t{n * c});
            const auto size = x.numel() / (n * c);
            std::vector<float> y, mean, inv;
            for (std::int64_t p = 0; p < n * c; ++p) {
                double m = 0, v = 0;
                for (std::int64_t i = 0; i < size; ++i) m += x.span<float>()[p * size + i];
                m /= double(size);
                for (std::int64_t i = 0; i < size; ++i) {
                    const double d = x.span<float>()[p * size + i] - m;
                    v += d * d;
                }
                v /= double(size);
                const double iv = 1 / std::sqrt(v + 1e-3);
                const double sc = affine ? scale.span<float>()[p % c] : 1,
                             b = affine ? bias.span<float>()[p % c] : 0;
                for (std::int64_t i = 0; i < size; ++i)
                    y.push_back(float((x.span<float>()[p * size + i] - m) * iv * sc + b));
                mean.push_back(float(m));
                inv.push_back(float(iv));
            }
            CHECK(test::max_abs_diff(r.get("Y").span<float>(), y) < 1e-5);
            CHECK(test::max_abs_diff(r.get("SavedMean").span<float>(), mean) < 1e-6);
            CHECK(test::max_rel_diff(r.get("SavedVariance").span<float>(), inv) < 1e-5);
        }
}

TEST_CASE("instance_norm: the statistics outputs are optional; bad input is named") {
    auto x = test::random_tensor({1, 2, 3, 3}, 1);
    auto r = invoke("instance_norm", {}, named_tensors{}.add("X", x), {{"Y", 1}});
    CHECK(r.get("Y").shape() == x.shape());
    CHECK_THROWS_WITH_AS(
        invoke("instance_norm", {},
               named_tensors{}.add("X", x).add("Scale", test::random_tensor({3}, 2)), {{"Y", 1}}),
        doctest::Contains("Scale has shape [3], X has 2 channels"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("instance_norm", {},
                                named_tensors{}.add("X", test::random_tensor({4}, 2)), {{"Y", 1}}),
                         doctest::Contains("X must have rank 2 to 5"), shape_error);
}

}  // namespace ops_instance_norm_test
