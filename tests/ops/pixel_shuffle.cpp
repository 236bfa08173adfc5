// pixel_shuffle against a plain loop: upscale factors 1 to 3, NCHW and NHWC,
// int data; channels that do not divide and bad attributes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_pixel_shuffle_test {

TEST_CASE("pixel_shuffle matches the baseline") {
    std::uint32_t seed = 1;
    for (std::int64_t r : {1, 2, 3})
        for (bool nhwc : {false, true})
            for (const auto& [n, c, h, w] : std::vector<std::array<std::int64_t, 4>>{
                     {1, 1, 1, 1}, {2, 3, 2, 3}, {1, 2, 4, 1}, {1, 1, 0, 2}}) {
                CAPTURE(r);
                CAPTURE(nhwc);
                const auto ic = c * r * r;
                auto x =
                    test::random_tensor(nhwc ? shape_t{n, h, w, ic} : shape_t{n, ic, h, w}, seed++);
                attr_map a;
                a.set("upscale_factor", r);
                a.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
                auto out = invoke("pixel_shuffle", a, named_tensors{}.add("X", x), {{"Out", 1}});
                const auto oh = h * r, ow = w * r;
                CHECK(out.get("Out").shape() ==
                      (nhwc ? shape_t{n, oh, ow, c} : shape_t{n, c, oh, ow}));
                // Output (b, ch, y, xx) from input channel ch*r*r + (y%r)*r + xx%r at (y/r, xx/r).
                std::vector<float> expect(static_cast<std::size_t>(n * c * oh * ow));
                auto xv = x.span<float>();
                for (std::int64_t b = 0; b < n; ++b)
                    for (std::int64_t ch = 0; ch < c; ++ch)
                        for (std::int64_t y = 0; y < oh; ++y)
                            for (std::int64_t xx = 0; xx < ow; ++xx) {
                                const auto k = ch * r * r + (y % r) * r + xx % r;
                                const float v = nhwc ? xv[((b * h + y / r) * w + xx / r) * ic + k]
                                                     : xv[((b * ic + k) * h + y / r) * w + xx / r];
                                const auto at = nhwc ? ((b * oh + y) * ow + xx) * c + ch
                                                     : ((b * c + ch) * oh + y) * ow + xx;
                                expect[static_cast<std::size_t>(at)] = v;
                            }
                CHECK(test::max_abs_diff(out.get("Out").span<float>(), expect) == 0);
            }
}

TEST_CASE("pixel_shuffle of int64 values") {
    auto x = tensor::from<std::int64_t>({1, 4, 1, 1}, std::vector<std::int64_t>{1, 2, 3, 4});
    attr_map a;
    a.set("upscale_factor", 2);
    auto r = invoke("pixel_shuffle", a, named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{1, 1, 2, 2});
    auto v = r.get("Out").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == std::vector<std::int64_t>{1, 2, 3, 4});
}

TEST_CASE("pixel_shuffle names bad input") {
    attr_map a;
    a.set("upscale_factor", 2);
    CHECK_THROWS_WITH_AS(
        invoke("pixel_shuffle", a, named_tensors{}.add("X", test::random_tensor({1, 6, 2, 2}, 1)),
               {{"Out", 1}}),
        doctest::Contains("the channels of X (6) are not a multiple of upscale_factor^2 (4)"),
        shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("pixel_shuffle", a, named_tensors{}.add("X", test::random_tensor({4, 2, 2}, 1)),
               {{"Out", 1}}),
        doctest::Contains("X must be 4-D"), shape_error);
    a.set("data_format", std::string("NDHWC"));
    CHECK_THROWS_WITH_AS(invoke("pixel_shuffle", a, named_tensors{}, {{"Out", 1}}),
                         doctest::Contains("data_format 'NDHWC' is not supported"),
                         unsupported_error);
    attr_map b;
    b.set("upscale_factor", 0);
    CHECK_THROWS_WITH_AS(invoke("pixel_shuffle", b, named_tensors{}, {{"Out", 1}}),
                         doctest::Contains("upscale_factor 0 must be positive"), unsupported_error);
}

}  // namespace ops_pixel_shuffle_test
