// The int8 kernels against reference integer arithmetic written here as plain
// loops: int32 accumulation, then the requantize rule of the epilogue
// (v = acc * multiplier[c] + bias[c], activation, sat8(round(v / out_step))).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/op_table.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_int8_kernels_test {

namespace {

tensor random_i8(const shape_t& s, std::uint32_t seed, int lo = -128, int hi = 127) {
    tensor t(dtype::i8, s);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(lo, hi);
    auto* p = reinterpret_cast<std::int8_t*>(t.data());
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<std::int8_t>(d(rng));
    return t;
}

std::int8_t sat8(float v) {
    float r = std::round(v);
    if (r < -128.f) r = -128.f;
    if (r > 127.f) r = 127.f;
    return static_cast<std::int8_t>(r);
}

const std::int8_t* i8(const tensor& t) {
    return reinterpret_cast<const std::int8_t*>(t.data());
}
const float* f32(const tensor& t) {
    return reinterpret_cast<const float*>(t.data());
}

tensor run1(const std::string& type, const attr_map& a, named_tensors in, const char* out) {
    return std::move(invoke<runtime::op_table>(type, a, in, {{out, 1}}).slots[0].second[0]);
}

attr_map conv_attrs(int stride, int pad, int groups) {
    attr_map a;
    a.set("strides", std::vector<std::int32_t>{stride, stride});
    a.set("paddings", std::vector<std::int32_t>{pad, pad});
    a.set("dilations", std::vector<std::int32_t>{1, 1});
    a.set("groups", std::int32_t{groups});
    return a;
}

}  // namespace

TEST_CASE("fused_conv2d_int8 equals integer conv + requantize in plain loops") {
    struct shape_case {
        std::int64_t n, c, h, w, oc, k;
        int stride, pad, groups;
    };
    for (auto sc :
         {shape_case{1, 3, 9, 11, 8, 3, 1, 1, 1}, shape_case{2, 4, 8, 8, 4, 3, 2, 1, 4},
          shape_case{1, 6, 5, 7, 6, 1, 1, 0, 2}, shape_case{1, 16, 6, 6, 8, 1, 1, 0, 1},
          shape_case{1, 8, 9, 9, 8, 3, 1, 1, 8}, shape_case{1, 5, 10, 11, 5, 5, 2, 2, 5}}) {
        for (const char* kernel : {"fast", "reference", "cortex_m"}) {
            CAPTURE(kernel);
            CAPTURE(sc.c);
            CAPTURE(sc.k);
            CAPTURE(sc.groups);
            auto x = random_i8({sc.n, sc.c, sc.h, sc.w}, 1);
            auto f = random_i8({sc.oc, sc.c / sc.groups, sc.k, sc.k}, 2);
            auto m = test::random_tensor({sc.oc}, 3, 1e-4f, 2e-3f);
            auto b = test::random_tensor({sc.oc}, 4, -1.f, 1.f);
            const float out_step = 0.02f;
            // The reference: int32 accumulation, then the requantize rule.
            const std::int64_t oh = (sc.h + 2 * sc.pad - sc.k) / sc.stride + 1;
            const std::int64_t ow = (sc.w + 2 * sc.pad - sc.k) / sc.stride + 1;
            const std::int64_t cin_g = sc.c / sc.groups, cout_g = sc.oc / sc.groups;
            std::vector<float> real(static_cast<std::size_t>(sc.n * sc.oc * oh * ow));
            std::vector<float> rescaled(real.size());  // acc * multiplier, before the bias
            for (std::int64_t n = 0; n < sc.n; ++n)
                for (std::int64_t o = 0; o < sc.oc; ++o)
                    for (std::int64_t y = 0; y < oh; ++y)
                        for (std::int64_t z = 0; z < ow; ++z) {
                            std::int32_t acc = 0;
                            for (std::int64_t ic = 0; ic < cin_g; ++ic)
                                for (std::int64_t i = 0; i < sc.k; ++i)
                                    for (std::int64_t j = 0; j < sc.k; ++j) {
                                        const std::int64_t ih = y * sc.stride - sc.pad + i;
                                        const std::int64_t iw = z * sc.stride - sc.pad + j;
                                        if (ih < 0 || ih >= sc.h || iw < 0 || iw >= sc.w) continue;
                                        const std::int64_t cin = (o / cout_g) * cin_g + ic;
                                        acc += std::int32_t{i8(
                                                   x)[((n * sc.c + cin) * sc.h + ih) * sc.w + iw]} *
                                               i8(f)[((o * cin_g + ic) * sc.k + i) * sc.k + j];
                                    }
                            const auto at =
                                static_cast<std::size_t>(((n * sc.oc + o) * oh + y) * ow + z);
                            rescaled[at] = static_cast<float>(acc) * f32(m)[o];
                            real[at] = rescaled[at] + f32(b)[o];
                        }
            auto in = named_tensors{}
                          .add("Input", x)
                          .add("Filter", f)
                          .add("Multiplier", m)
                          .add("Bias", b);
            SUBCASE("relu, int8 out") {
                attr_map a = conv_attrs(sc.stride, sc.pad, sc.groups);
                a.set("litegraph_kernel", std::string(kernel));
                a.set("stages", test::conv_stages("relu", "quantize_store", true));
                a.set("output_step", out_step);
                auto y = run1("fused_conv2d_int8", a, in, "Output");
                REQUIRE(y.type() == dtype::i8);
                REQUIRE(y.numel() == static_cast<std::int64_t>(real.size()));
                int mismatches = 0, nonzero = 0;
                for (std::size_t i = 0; i < real.size(); ++i) {
                    const auto want = sat8(std::max(real[i], 0.f) * (1.f / out_step));
                    mismatches += i8(y)[i] != want;
                    nonzero += want != 0;
                }
                CHECK(mismatches == 0);
                CHECK(nonzero > 0);
            }
            SUBCASE("no activation, float out") {
                attr_map a = conv_attrs(sc.stride, sc.pad, sc.groups);
                a.set("litegraph_kernel", std::string(kernel));
                a.set("stages", test::conv_stages("", "store", true));
                auto y = run1("fused_conv2d_int8", a, in, "Output");
                REQUIRE(y.type() == dtype::f32);
                CHECK(test::max_abs_diff(y.span<float>(), real) == 0.0);
            }
            SUBCASE("a Scale (a folded batch norm) scales each channel before the bias") {
                // The bias stage is the fp32 fused conv's (fusion/stages.hpp):
                // v * Scale[c] + Bias[c], v the rescaled accumulator.
                attr_map a = conv_attrs(sc.stride, sc.pad, sc.groups);
                a.set("litegraph_kernel", std::string(kernel));
                a.set("stages", test::conv_stages("", "store", true));
                auto k = test::random_tensor({sc.oc}, 5, 0.5f, 2.f);
                auto scaled_in = in;
                scaled_in.add("Scale", k);
                auto y = run1("fused_conv2d_int8", a, scaled_in, "Output");
                REQUIRE(y.type() == dtype::f32);
                const std::int64_t plane = oh * ow;
                std::vector<float> want(real.size());
                for (std::size_t i = 0; i < want.size(); ++i) {
                    const auto o = static_cast<std::int64_t>(i) / plane % sc.oc;
                    want[i] = rescaled[i] * f32(k)[o] + f32(b)[o];
                }
                CHECK(test::max_rel_diff(y.span<float>(), want) < 1e-6);
                CHECK(test::max_abs_diff(y.span<float>(), real) > 1e-3);  // the Scale mattered
                // A Scale of the wrong size is named.
                auto bad = in;
                bad.add("Scale", test::random_tensor({sc.oc + 1}, 6));
                CHECK_THROWS_WITH_AS(run1("fused_conv2d_int8", a, bad, "Output"),
                                     doctest::Contains("Scale"), shape_error);
            }
        }
    }
}

TEST_CASE("the three int8 accumulations agree on odd geometries (asymmetric paddings)") {
    // The Cortex-M patch path once took a 1x1 conv with only a bottom or right
    // padding for a padding-free one and read past the image (found by
    // fuzz_fusion; tests/broken/fusion-ok-int8-cortex-m-1x1-bottom-padding.bin).
    struct geometry_case {
        std::int64_t c, h, w, oc, kh, kw;
        std::vector<std::int32_t> pads;  // top, bottom, left, right
        int stride, dilation, groups;
    };
    std::uint32_t seed = 20;
    for (const auto& gc : {geometry_case{1, 1, 1, 1, 1, 1, {0, 1, 0, 0}, 1, 2, 1},
                           geometry_case{3, 4, 5, 6, 1, 1, {0, 2, 0, 1}, 1, 1, 1},
                           geometry_case{4, 5, 3, 4, 1, 1, {0, 0, 0, 2}, 2, 1, 1},
                           geometry_case{2, 6, 6, 3, 3, 1, {1, 0, 2, 0}, 1, 1, 1},
                           geometry_case{6, 7, 5, 6, 3, 3, {0, 2, 1, 0}, 2, 1, 6},
                           geometry_case{4, 5, 6, 8, 2, 3, {2, 1, 0, 2}, 1, 2, 2}}) {
        CAPTURE(gc.c);
        CAPTURE(gc.kh);
        CAPTURE(gc.groups);
        auto x = random_i8({2, gc.c, gc.h, gc.w}, seed++);
        auto f = random_i8({gc.oc, gc.c / gc.groups, gc.kh, gc.kw}, seed++);
        auto m = test::random_tensor({gc.oc}, seed++, 1e-4f, 2e-3f);
        auto b = test::random_tensor({gc.oc}, seed++, -1.f, 1.f);
        auto in =
            named_tensors{}.add("Input", x).add("Filter", f).add("Multiplier", m).add("Bias", b);
        std::vector<tensor> outs;
        for (const char* kernel : {"reference", "fast", "cortex_m"}) {
            attr_map a;
            a.set("strides", std::vector<std::int32_t>{gc.stride, gc.stride});
            a.set("paddings", gc.pads);
            a.set("dilations", std::vector<std::int32_t>{gc.dilation, gc.dilation});
            a.set("groups", std::int32_t{gc.groups});
            a.set("litegraph_kernel", std::string(kernel));
            a.set("stages", test::conv_stages("", "store", true));
            outs.push_back(run1("fused_conv2d_int8", a, in, "Output"));
        }
        for (std::size_t k = 1; k < outs.size(); ++k) {
            REQUIRE(outs[k].shape() == outs[0].shape());
            CHECK(test::max_abs_diff(outs[k].span<float>(), outs[0].span<float>()) == 0.0);
        }
    }
}

TEST_CASE("the int8 conv and fc name an unknown litegraph_kernel") {
    attr_map a = conv_attrs(1, 0, 1);
    a.set("litegraph_kernel", std::string("neon"));
    a.set("stages", test::conv_stages("", "store", true));
    CHECK_THROWS_WITH_AS(make_instance<runtime::op_table>("fused_conv2d_int8", a),
                         doctest::Contains("litegraph_kernel 'neon' (expected \"fast\", "
                                           "\"reference\" or \"cortex_m\")"),
                         unsupported_error);
    CHECK_THROWS_AS(make_instance<runtime::op_table>("mul_int8", a), unsupported_error);
}

TEST_CASE("mul_int8 equals integer matrix product + requantize") {
    const std::int64_t M = 3, K = 37, N = 5;
    auto x = random_i8({M, K}, 5), y = random_i8({K, N}, 6);
    auto m = test::random_tensor({N}, 7, 1e-4f, 1e-3f);
    std::vector<float> real(M * N);
    for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) {
            std::int32_t acc = 0;
            for (std::int64_t k = 0; k < K; ++k)
                acc += std::int32_t{i8(x)[i * K + k]} * i8(y)[k * N + j];
            real[i * N + j] = static_cast<float>(acc) * f32(m)[j];
        }
    auto in = named_tensors{}.add("X", x).add("Y", y).add("Multiplier", m);
    for (const char* kernel : {"fast", "reference", "cortex_m"}) {
        CAPTURE(kernel);
        attr_map a;
        a.set("litegraph_kernel", std::string(kernel));
        auto fl = run1("mul_int8", a, in, "Out");
        CHECK(test::max_abs_diff(fl.span<float>(), real) == 0.0);
        a.set("output_step", 0.01f);
        auto q = run1("mul_int8", a, in, "Out");
        REQUIRE(q.type() == dtype::i8);
        for (std::size_t i = 0; i < real.size(); ++i)
            CHECK(i8(q)[i] == sat8(real[i] * (1.f / 0.01f)));
    }
}

TEST_CASE("pool2d_int8: max and exclusive average with padding, in integers") {
    auto x = random_i8({1, 2, 5, 6}, 8);
    for (std::string kind : {"max", "avg"}) {
        INFO(kind);
        attr_map a;
        a.set("pooling_type", kind);
        a.set("ksize", std::vector<std::int32_t>{3, 3});
        a.set("strides", std::vector<std::int32_t>{2, 2});
        a.set("paddings", std::vector<std::int32_t>{1, 1});
        auto y = run1("pool2d_int8", a, named_tensors{}.add("X", x), "Out");
        REQUIRE(y.shape() == shape_t{1, 2, 3, 3});
        for (std::int64_t c = 0; c < 2; ++c)
            for (std::int64_t oh = 0; oh < 3; ++oh)
                for (std::int64_t ow = 0; ow < 3; ++ow) {
                    std::int32_t mx = -128, sum = 0, cnt = 0;
                    for (std::int64_t ih = oh * 2 - 1; ih < oh * 2 + 2; ++ih)
                        for (std::int64_t iw = ow * 2 - 1; iw < ow * 2 + 2; ++iw) {
                            if (ih < 0 || ih >= 5 || iw < 0 || iw >= 6) continue;
                            const std::int32_t v = i8(x)[(c * 5 + ih) * 6 + iw];
                            mx = std::max(mx, v);
                            sum += v;
                            ++cnt;
                        }
                    const double avg = static_cast<double>(sum) / cnt;
                    const auto want =
                        kind == "max"
                            ? mx
                            : static_cast<std::int32_t>(avg >= 0 ? std::floor(avg + 0.5)
                                                                 : -std::floor(-avg + 0.5));
                    CHECK(i8(y)[(c * 3 + oh) * 3 + ow] == want);
                }
    }
}

TEST_CASE("pool2d_int8 requantized: global average and max pools into another step") {
    // The SE block's global pool of an int8 block and a max pool into the
    // next conv's step: one rounding of (sum or max) * input_step /
    // output_step (/ count), in plain loops here.
    auto x = random_i8({2, 3, 4, 5}, 11);
    const float in_step = 0.05f, out_step = 0.0125f;
    for (std::string kind : {"avg", "max"}) {
        INFO(kind);
        attr_map a;
        a.set("pooling_type", kind);
        a.set("global_pooling", true);
        a.set("ksize", std::vector<std::int32_t>{1, 1});
        a.set("input_step", in_step);
        a.set("output_step", out_step);
        auto y = run1("pool2d_int8", a, named_tensors{}.add("X", x), "Out");
        REQUIRE(y.shape() == shape_t{2, 3, 1, 1});
        int saturated = 0;
        for (std::int64_t p = 0; p < 6; ++p) {
            std::int32_t mx = -128, sum = 0;
            for (std::int64_t i = 0; i < 20; ++i) {
                const std::int32_t v = i8(x)[p * 20 + i];
                mx = std::max(mx, v);
                sum += v;
            }
            const float k = kind == "max" ? in_step / out_step : in_step / out_step / 20.f;
            const auto want = sat8(static_cast<float>(kind == "max" ? mx : sum) * k);
            saturated += want == 127 || want == -128;
            CHECK(i8(y)[p] == want);
        }
        if (kind == "avg") CHECK(saturated < 6);  // the averages are not all clipped
    }
    // One step without the other is refused.
    attr_map a;
    a.set("pooling_type", std::string("avg"));
    a.set("global_pooling", true);
    a.set("ksize", std::vector<std::int32_t>{1, 1});
    a.set("input_step", in_step);
    CHECK_THROWS_WITH_AS(run1("pool2d_int8", a, named_tensors{}.add("X", x), "Out"),
                         doctest::Contains("output_step"), error);
}

TEST_CASE("fused_conv2d_int8: the SE gate over an int8 Other (mul_plane_int8)") {
    // conv [N, C, 1, 1] -> rescale, bias, hard_sigmoid -> times the int8
    // plane Other (dequantized: q * other_step) -> quantize_store, and the
    // float output; plain loops here.
    const std::int64_t n = 2, c = 4, ic = 6, h = 3, w = 5;
    auto x = random_i8({n, ic, 1, 1}, 12);
    auto f = random_i8({c, ic, 1, 1}, 13);
    auto m = test::random_tensor({c}, 14, 1e-5f, 5e-5f);  // gates inside (0, 1)
    auto b = test::random_tensor({c}, 15, -1.f, 1.f);
    auto other = random_i8({n, c, h, w}, 16);
    const float other_step = 0.03f, out_step = 0.02f;
    std::vector<float> want(static_cast<std::size_t>(n * c * h * w));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t o = 0; o < c; ++o) {
            std::int32_t acc = 0;
            for (std::int64_t k = 0; k < ic; ++k)
                acc += std::int32_t{i8(x)[i * ic + k]} * i8(f)[o * ic + k];
            const float v = static_cast<float>(acc) * f32(m)[o] + f32(b)[o];
            const float gate = std::min(std::max(v * 0.2f + 0.5f, 0.f), 1.f);
            for (std::int64_t j = 0; j < h * w; ++j) {
                const auto at = static_cast<std::size_t>((i * c + o) * h * w + j);
                want[at] = static_cast<float>(i8(other)[at]) * other_step * gate;
            }
        }
    auto in = named_tensors{}
                  .add("Input", x)
                  .add("Filter", f)
                  .add("Multiplier", m)
                  .add("Bias", b)
                  .add("Other", other);
    for (const char* kernel : {"fast", "reference", "cortex_m"}) {
        CAPTURE(kernel);
        attr_map a = conv_attrs(1, 0, 1);
        a.set("litegraph_kernel", std::string(kernel));
        a.set("other_step", other_step);
        a.set("stages", std::vector<std::string>{"rescale", "bias", "hard_sigmoid",
                                                 "mul_plane_int8", "quantize_store"});
        a.set("output_step", out_step);
        auto y = run1("fused_conv2d_int8", a, in, "Output");
        REQUIRE(y.type() == dtype::i8);
        REQUIRE(y.shape() == shape_t{n, c, h, w});
        int mismatches = 0, nonzero = 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
            const auto q = sat8(want[i] * (1.f / out_step));
            mismatches += i8(y)[i] != q;
            nonzero += q != 0;
        }
        CHECK(mismatches == 0);
        CHECK(nonzero > static_cast<int>(want.size()) / 4);
        a.set("stages",
              std::vector<std::string>{"rescale", "bias", "hard_sigmoid", "mul_plane_int8"});
        auto yf = run1("fused_conv2d_int8", a, in, "Output");
        REQUIRE(yf.type() == dtype::f32);
        CHECK(test::max_rel_diff(yf.span<float>(), want) < 1e-6);
    }
    // A float Other is refused by name.
    attr_map a = conv_attrs(1, 0, 1);
    a.set("other_step", other_step);
    a.set("stages", std::vector<std::string>{"rescale", "bias", "hard_sigmoid", "mul_plane_int8"});
    auto bad = named_tensors{}
                   .add("Input", x)
                   .add("Filter", f)
                   .add("Multiplier", m)
                   .add("Bias", b)
                   .add("Other", test::random_tensor({n, c, h, w}, 17));
    CHECK_THROWS_WITH_AS(run1("fused_conv2d_int8", a, bad, "Output"),
                         doctest::Contains("Other must be int8"), shape_error);
}

TEST_CASE("elementwise int8 add and mul requantize in one loop") {
    auto x = random_i8({2, 3, 4}, 9), y = random_i8({2, 3, 4}, 10);
    for (std::string type : {"elementwise_add_int8", "elementwise_mul_int8"}) {
        INFO(type);
        attr_map a;
        a.set("x_step", 0.05f);
        a.set("y_step", 0.03f);
        a.set("output_step", 0.07f);
        auto out = run1(type, a, named_tensors{}.add("X", x).add("Y", y), "Out");
        for (std::int64_t i = 0; i < x.numel(); ++i) {
            const float v =
                type == "elementwise_add_int8"
                    ? static_cast<float>(i8(x)[i]) * 0.05f + static_cast<float>(i8(y)[i]) * 0.03f
                    : static_cast<float>(std::int32_t{i8(x)[i]} * i8(y)[i]) * (0.05f * 0.03f);
            CHECK(i8(out)[i] == sat8(v * (1.f / 0.07f)));
        }
    }
}

TEST_CASE("concat_int8 copies inputs of the output step and requantizes the others") {
    auto a = random_i8({1, 2, 3}, 11), b = random_i8({1, 4, 3}, 12);
    attr_map at;
    at.set("axis", std::int32_t{1});
    at.set("steps", std::vector<float>{0.1f, 0.05f});
    at.set("output_step", 0.1f);
    auto out = run1("concat_int8", at, named_tensors{}.add("X", a).add("X", b), "Out");
    REQUIRE(out.shape() == shape_t{1, 6, 3});
    for (std::int64_t i = 0; i < 6; ++i) CHECK(i8(out)[i] == i8(a)[i]);
    for (std::int64_t i = 0; i < 12; ++i)
        CHECK(i8(out)[6 + i] == sat8(static_cast<float>(i8(b)[i]) * (0.05f / 0.1f)));
}

TEST_CASE("quantize_int8 rounds half away from zero and saturates; dequantize inverts") {
    std::vector<float> v{0.25f, -0.25f, 0.75f, 100.f, -100.f, 0.f};
    auto x = tensor::from<float>({6}, v);
    attr_map a;
    a.set("step", 0.5f);
    auto q = run1("quantize_int8", a, named_tensors{}.add("X", x), "Out");
    const std::int8_t want[] = {1, -1, 2, 127, -128, 0};
    for (int i = 0; i < 6; ++i) CHECK(i8(q)[i] == want[i]);
    auto d = run1("dequantize_int8", a, named_tensors{}.add("X", q), "Out");
    CHECK(f32(d)[2] == 1.f);
    CHECK(f32(d)[4] == -64.f);
    CHECK_THROWS_AS(run1("quantize_int8", attr_map{}, named_tensors{}.add("X", x), "Out"),
                    unsupported_error);
}

}  // namespace ops_int8_kernels_test
