#include "litegraph/ops/fake_quant.hpp"

#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_fake_quant_test {

namespace {
attr_map attrs(int bits, int round_type = -1, int quant_axis = -1) {
    attr_map a;
    a.set("bit_length", bits);
    if (round_type >= 0) a.set("round_type", round_type);
    if (quant_axis >= 0) a.set("quant_axis", quant_axis);
    a.set("is_test", true);
    a.set("moving_rate", 0.9f);
    return a;
}

// Paddle's formula as a plain expression: round_type 1 clips to [-s, s] and
// rounds half away from zero; round_type 0 rounds half to even and clamps the
// integer to [-bnt-1, bnt].
float qdq(float x, float s, int bits, int round_type) {
    const float bnt = static_cast<float>((1 << (bits - 1)) - 1);
    const float inv = s <= 1e-30f ? 1.f / (s + 1e-6f) : 1.f / s;
    if (round_type == 0) {
        float v = bnt * inv * x;
        float fl = std::floor(v), up = std::ceil(v);
        float q = (v - fl == up - v) ? (std::fmod(fl, 2.f) == 0.f ? fl : up)
                                     : (v - fl < up - v ? fl : up);
        q = std::clamp(q, -bnt - 1, bnt);
        return q * s / bnt;
    }
    const float c = std::clamp(x, -s, s);
    return std::round(bnt * inv * c) * s / bnt;
}

tensor run_ma(const tensor& x, float scale, const attr_map& a) {
    auto s = tensor::from<float>({1}, std::vector<float>{scale});
    return invoke("fake_quantize_dequantize_moving_average_abs_max", a,
                  named_tensors{}.add("X", x).add("InScale", s), {{"Out", 1}})
        .get("Out");
}
}  // namespace

TEST_CASE("moving-average fake quant uses InScale; rounding follows round_type") {
    // scale 127 with 8 bits: one quantum is exactly 1.
    auto x =
        tensor::from<float>({7}, std::vector<float>{2.5f, -2.5f, 3.5f, 200.f, -300.f, 0.4f, -0.6f});
    auto away = run_ma(x, 127.f, attrs(8));
    CHECK(std::vector<float>(away.span<float>().begin(), away.span<float>().end()) ==
          std::vector<float>{3.f, -3.f, 4.f, 127.f, -127.f, 0.f, -1.f});
    auto even = run_ma(x, 127.f, attrs(8, 0));
    CHECK(std::vector<float>(even.span<float>().begin(), even.span<float>().end()) ==
          std::vector<float>{2.f, -2.f, 4.f, 127.f, -128.f, 0.f, -1.f});
}

TEST_CASE("moving-average fake quant matches the formula over shapes, bits and scales") {
    std::uint32_t seed = 31;
    for (const shape_t& s : {shape_t{10}, shape_t{2, 3, 4, 5}})
        for (int bits : {8, 4, 16})
            for (int rt : {1, 0})
                for (float scale : {0.7f, 2.f, 0.f}) {
                    CAPTURE(bits);
                    CAPTURE(rt);
                    CAPTURE(scale);
                    auto x = test::random_tensor(s, seed++, -1.5f, 1.5f);
                    auto out = run_ma(x, scale, attrs(bits, rt));
                    REQUIRE(out.shape() == s);
                    std::vector<float> expect;
                    for (float v : x.span<float>()) expect.push_back(qdq(v, scale, bits, rt));
                    CHECK(test::max_abs_diff(out.span<float>(), expect) == 0.0);
                }
}

TEST_CASE("channel-wise fake quant: per-channel max|x| along quant_axis 0 and 1") {
    std::uint32_t seed = 51;
    for (const shape_t& s : {shape_t{4, 3, 3, 3}, shape_t{3, 5}, shape_t{6, 2, 1, 1}, shape_t{4}})
        for (int axis : {0, 1})
            for (int rt : {1, 0}) {
                if (axis >= static_cast<int>(s.size())) continue;
                CAPTURE(to_string(s));
                CAPTURE(axis);
                auto x = test::random_tensor(s, seed++, -2.f, 2.f);
                auto r = invoke("fake_channel_wise_quantize_dequantize_abs_max", attrs(8, rt, axis),
                                named_tensors{}.add("X", x), {{"Out", 1}, {"OutScale", 1}});
                const auto& out = r.get("Out");
                const auto& sc = r.get("OutScale");
                const std::int64_t C = s[static_cast<std::size_t>(axis)];
                REQUIRE(out.shape() == s);
                REQUIRE(sc.shape() == shape_t{C});
                // Baseline: the channel of flat index i is (i / inner) % C.
                std::int64_t inner = 1;
                for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < s.size(); ++d)
                    inner *= s[d];
                auto xs = x.span<float>();
                std::vector<float> scales(static_cast<std::size_t>(C), 0.f);
                for (std::size_t i = 0; i < xs.size(); ++i) {
                    auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % C);
                    scales[c] = std::max(scales[c], std::abs(xs[i]));
                }
                CHECK(test::max_abs_diff(sc.span<float>(), scales) == 0.0);
                std::vector<float> expect(xs.size());
                for (std::size_t i = 0; i < xs.size(); ++i) {
                    auto c = static_cast<std::size_t>((static_cast<std::int64_t>(i) / inner) % C);
                    expect[i] = qdq(xs[i], scales[c], 8, rt);
                }
                CHECK(test::max_abs_diff(out.span<float>(), expect) == 0.0);
            }
}

TEST_CASE("fake quant problems are named") {
    auto x = test::random_tensor({2, 3}, 1);
    CHECK_THROWS_WITH_AS(invoke("fake_channel_wise_quantize_dequantize_abs_max", attrs(8, 1, 2),
                                named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("quant_axis"), shape_error);
    CHECK_THROWS_AS(invoke("fake_quantize_dequantize_moving_average_abs_max", attrs(1),
                           named_tensors{}.add("X", x).add("InScale", test::random_tensor({1}, 2)),
                           {{"Out", 1}}),
                    unsupported_error);
    CHECK_THROWS_WITH_AS(
        invoke("fake_quantize_dequantize_moving_average_abs_max", attrs(8),
               named_tensors{}.add("X", x).add("InScale", test::random_tensor({2}, 2)),
               {{"Out", 1}}),
        doctest::Contains("InScale"), shape_error);
}

TEST_CASE("per-tensor abs_max fake quant derives its scale from X") {
    auto x = test::random_tensor({3, 4}, 77, -3.f, 3.f);
    auto r = invoke("fake_quantize_dequantize_abs_max", attrs(8), named_tensors{}.add("X", x),
                    {{"Out", 1}, {"OutScale", 1}});
    float m = 0.f;
    for (float v : x.span<float>()) m = std::max(m, std::abs(v));
    CHECK(r.get("OutScale").span<float>()[0] == m);
    std::vector<float> expect;
    for (float v : x.span<float>()) expect.push_back(qdq(v, m, 8, 1));
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect) == 0.0);
}

}  // namespace ops_fake_quant_test
