// group_norm against a plain double-precision loop: group counts from 1 to C,
// NCHW and NHWC, with and without Scale/Bias, the Mean and Variance outputs;
// channels that do not divide and bad layouts are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_group_norm_test {

TEST_CASE("group_norm matches the baseline") {
    std::uint32_t seed = 1;
    for (bool nhwc : {false, true})
        for (const shape_t& s :
             {shape_t{2, 6, 3, 4}, shape_t{1, 4, 5}, shape_t{2, 6}, shape_t{1, 2, 1, 1}})
            for (std::int64_t groups : {1, 2, 3, 6})
                for (bool affine : {false, true}) {
                    const auto c = nhwc ? s.back() : s[1];
                    if (c % groups) continue;
                    CAPTURE(nhwc);
                    CAPTURE(to_string(s));
                    CAPTURE(groups);
                    auto x = test::random_tensor(s, seed++, -1.f, 4.f);
                    auto scale = test::random_tensor({c}, seed++);
                    auto bias = test::random_tensor({c}, seed++);
                    attr_map a;
                    a.set("groups", groups);
                    a.set("epsilon", 1e-4f);
                    a.set("data_layout", std::string(nhwc ? "NHWC" : "NCHW"));
                    named_tensors in;
                    in.add("X", x);
                    if (affine) in.add("Scale", scale).add("Bias", bias);
                    auto r = invoke("group_norm", a, in, {{"Y", 1}, {"Mean", 1}, {"Variance", 1}});
                    const auto n = s[0];
                    REQUIRE(r.get("Y").shape() == s);
                    REQUIRE(r.get("Mean").shape() == shape_t{n, groups});
                    const auto image = x.numel() / (n * c);
                    const auto gs = c / groups;
                    auto idx = [&](std::int64_t b, std::int64_t ch, std::int64_t i) {
                        return nhwc ? (b * image + i) * c + ch : (b * c + ch) * image + i;
                    };
                    std::vector<float> y(static_cast<std::size_t>(x.numel())), mean, var;
                    for (std::int64_t b = 0; b < n; ++b)
                        for (std::int64_t g = 0; g < groups; ++g) {
                            double m = 0, v = 0;
                            for (std::int64_t ch = g * gs; ch < (g + 1) * gs; ++ch)
                                for (std::int64_t i = 0; i < image; ++i)
                                    m += x.span<float>()[idx(b, ch, i)];
                            m /= double(gs * image);
                            for (std::int64_t ch = g * gs; ch < (g + 1) * gs; ++ch)
                                for (std::int64_t i = 0; i < image; ++i) {
                                    const double d = x.span<float>()[idx(b, ch, i)] - m;
                                    v += d * d;
                                }
                            v /= double(gs * image);
                            mean.push_back(float(m));
                            var.push_back(float(v));
                            for (std::int64_t ch = g * gs; ch < (g + 1) * gs; ++ch)
                                for (std::int64_t i = 0; i < image; ++i) {
                                    const double sc = affine ? scale.span<float>()[ch] : 1,
                                                 sh = affine ? bias.span<float>()[ch] : 0;
                                    y[static_cast<std::size_t>(idx(b, ch, i))] =
                                        float((x.span<float>()[idx(b, ch, i)] - m) /
                                                  std::sqrt(v + 1e-4) * sc +
                                              sh);
                                }
                        }
                    CHECK(test::max_abs_diff(r.get("Y").span<float>(), y) < 2e-4);
                    CHECK(test::max_abs_diff(r.get("Mean").span<float>(), mean) < 1e-5);
                    CHECK(test::max_abs_diff(r.get("Variance").span<float>(), var) < 1e-4);
                }
}

TEST_CASE("group_norm names bad input") {
    auto x = test::random_tensor({1, 6, 2, 2}, 1);
    attr_map a;
    a.set("groups", 4);
    CHECK_THROWS_WITH_AS(invoke("group_norm", a, named_tensors{}.add("X", x), {{"Y", 1}}),
                         doctest::Contains("the channels of X (6) do not divide into 4 groups"),
                         shape_error);
    a.set("groups", 0);
    CHECK_THROWS_WITH_AS(invoke("group_norm", a, named_tensors{}.add("X", x), {{"Y", 1}}),
                         doctest::Contains("groups 0 must be >= 1"), shape_error);
    a.set("groups", 2);
    CHECK_THROWS_WITH_AS(
        invoke("group_norm", a,
               named_tensors{}.add("X", x).add("Bias", test::random_tensor({2}, 2)), {{"Y", 1}}),
        doctest::Contains("Bias has shape [2], X has 6 channels"), shape_error);
    a.set("data_layout", std::string("NCDHW"));
    CHECK_THROWS_WITH_AS(invoke("group_norm", a, named_tensors{}, {{"Y", 1}}),
                         doctest::Contains("data_layout 'NCDHW' is not supported"),
                         unsupported_error);
}

}  // namespace ops_group_norm_test
