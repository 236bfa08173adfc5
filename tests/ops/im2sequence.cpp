// im2sequence against a loop written here (zero-padded image, then every
// window copied in (c, kh, kw) order): kernels, strides, asymmetric
// paddings, batches of one and several, the real-size input Y with
// out_stride (including a batch of one, where Paddle ignores Y); bad
// attributes and Y sizes are named.
#include <limits>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_im2sequence_test {

namespace {
struct i2s_case {
    shape_t x;
    std::vector<std::int64_t> k, s{1, 1}, pads{0, 0, 0, 0}, out_stride{1, 1};
    std::vector<float> y{};  // real (height, width) per image, or empty
};

attr_map attrs(const i2s_case& c) {
    attr_map a;
    a.set("kernels", c.k);
    a.set("strides", c.s);
    a.set("paddings", c.pads);
    a.set("out_stride", c.out_stride);
    return a;
}

std::vector<float> baseline(const tensor& x, const i2s_case& c, lod_t& lod) {
    const auto n = x.shape()[0], ch = x.shape()[1], h = x.shape()[2], w = x.shape()[3];
    const auto ph = h + c.pads[0] + c.pads[2], pw = w + c.pads[1] + c.pads[3];
    std::vector<float> out;
    lod = {{0}};
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t rh = h, rw = w;
        if (!c.y.empty() && n > 1) {
            rh = static_cast<std::int64_t>(c.y[static_cast<std::size_t>(2 * i)]);
            rw = static_cast<std::int64_t>(c.y[static_cast<std::size_t>(2 * i + 1)]);
            rh = (rh + c.out_stride[0] - 1) / c.out_stride[0];
            rw = (rw + c.out_stride[1] - 1) / c.out_stride[1];
        }
        const auto oh = (rh + c.pads[0] + c.pads[2] - c.k[0]) / c.s[0] + 1;
        const auto ow = (rw + c.pads[1] + c.pads[3] - c.k[1]) / c.s[1] + 1;
        // The padded image of the whole X (windows read past the real size).
        std::vector<float> padded(static_cast<std::size_t>(ch * ph * pw), 0.f);
        for (std::int64_t a = 0; a < ch; ++a)
            for (std::int64_t r = 0; r < h; ++r)
                for (std::int64_t q = 0; q < w; ++q)
                    padded[static_cast<std::size_t>((a * ph + r + c.pads[0]) * pw + q +
                                                    c.pads[1])] =
                        x.span<float>()[static_cast<std::size_t>(((i * ch + a) * h + r) * w + q)];
        for (std::int64_t r = 0; r < oh; ++r)
            for (std::int64_t q = 0; q < ow; ++q)
                for (std::int64_t a = 0; a < ch; ++a)
                    for (std::int64_t u = 0; u < c.k[0]; ++u)
                        for (std::int64_t v = 0; v < c.k[1]; ++v) {
                            const auto pr = r * c.s[0] + u, pq = q * c.s[1] + v;
                            out.push_back(
                                pr < ph && pq < pw
                                    ? padded[static_cast<std::size_t>((a * ph + pr) * pw + pq)]
                                    : 0.f);
                        }
        lod[0].push_back(lod[0].back() + oh * ow);
    }
    return out;
}
}  // namespace

TEST_CASE("im2sequence matches the baseline") {
    const std::vector<i2s_case> cases{
        {{1, 1, 4, 4}, {2, 2}},
        {{2, 3, 5, 6}, {3, 2}, {2, 1}},
        {{2, 2, 5, 5}, {3, 3}, {2, 2}, {1, 0, 2, 1}},
        {{1, 1, 1, 1}, {1, 1}},
        {{3, 2, 6, 8}, {2, 3}, {1, 2}, {0, 1, 1, 0}, {1, 1}, {6, 8, 3, 5, 4, 1}},
        {{2, 1, 8, 8}, {2, 2}, {1, 1}, {0, 0, 0, 0}, {2, 3}, {7, 8, 4, 2}},
        {{1, 1, 6, 6}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {2, 2}, {3, 3}},  // batch 1: Y ignored
    };
    std::uint32_t seed = 1;
    for (const auto& c : cases) {
        CAPTURE(to_string(c.x));
        auto x = test::random_tensor(c.x, seed++);
        named_tensors in;
        in.add("X", x);
        if (!c.y.empty()) in.add("Y", tensor::from<float>({c.x[0], 2}, c.y));
        auto r = invoke("im2sequence", attrs(c), in, {{"Out", 1}});
        lod_t lod;
        auto expected = baseline(x, c, lod);
        const auto width = c.x[1] * c.k[0] * c.k[1];
        REQUIRE(r.get("Out").shape() ==
                shape_t{static_cast<std::int64_t>(expected.size()) / width, width});
        CHECK(r.get("Out").lod() == lod);
        CHECK(test::max_abs_diff(r.get("Out").span<float>(), expected) == 0);
    }
}

TEST_CASE("im2sequence names bad inputs") {
    auto x = test::random_tensor({2, 1, 4, 4}, 1);
    i2s_case c{{}, {2, 2}};
    auto run = [&](const attr_map& a, const named_tensors& in) {
        return invoke("im2sequence", a, in, {{"Out", 1}});
    };
    const auto in = named_tensors{}.add("X", x);
    CHECK_NOTHROW(run(attrs(c), in));
    auto a = attrs(c);
    a.set("kernels", std::vector<std::int64_t>{2});
    CHECK_THROWS_WITH_AS(run(a, in), doctest::Contains("kernels must hold 2 values"), shape_error);
    a = attrs(c);
    a.set("paddings", std::vector<std::int64_t>{1, 1});
    CHECK_THROWS_WITH_AS(run(a, in), doctest::Contains("paddings must hold 4 values"), shape_error);
    a = attrs(c);
    a.set("kernels", std::vector<std::int64_t>{6, 2});
    CHECK_THROWS_WITH_AS(run(a, in), doctest::Contains("give -1 x 3 patches"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(attrs(c), named_tensors{}.add("X", x).add(
                          "Y", tensor::from<float>({2, 2}, std::vector<float>{4, 4, -3, 4}))),
        doctest::Contains("Y[1] = (-3, 4) is not an image size"), shape_error);
    // Sizes no int holds, and NaN, are refused before Paddle's truncation to int.
    CHECK_THROWS_WITH_AS(
        run(attrs(c), named_tensors{}.add("X", x).add(
                          "Y", tensor::from<float>({2, 2}, std::vector<float>{4, 4, 3e18f, 4}))),
        doctest::Contains("Y[1] = (3e+18, 4) is not an image size"), shape_error);
    CHECK_THROWS_WITH_AS(
        run(attrs(c),
            named_tensors{}.add("X", x).add(
                "Y",
                tensor::from<float>(
                    {2, 2}, std::vector<float>{4, std::numeric_limits<float>::quiet_NaN(), 4, 4}))),
        doctest::Contains("is not an image size"), shape_error);
    // A real size past the image: the windows read zeros there, as Paddle's.
    auto big = run(attrs(c), named_tensors{}.add("X", x).add(
                                 "Y", tensor::from<float>({2, 2}, std::vector<float>{4, 4, 9, 9})));
    CHECK(big.get("Out").shape() == shape_t{9 + 64, 4});
    CHECK_THROWS_WITH_AS(
        run(attrs(c), named_tensors{}.add("X", x).add(
                          "Y", tensor::from<float>({1, 2}, std::vector<float>{4, 4}))),
        doctest::Contains("Y must hold a (height, width) pair per image"), shape_error);
}

}  // namespace ops_im2sequence_test
