// The Cortex-M DSP int8 kernels on the desktop: the same kernels, on
// math.hpp's portable fallback of the ARMv7E-M instructions, against the
// reference int8 kernels on every shape of tests/firmware/dsp_cases.hpp (the
// firmware test runs the same cases on the real instructions under QEMU).
// Also the fallback instructions themselves against plain arithmetic.
#include <doctest/doctest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "litegraph/kernels/cortex_m/requantize.hpp"
#include "litegraph/ops/activation.hpp"

#include "../firmware/dsp_cases.hpp"

namespace {
std::string log_text;
struct host {
    static void put(const char* s) { log_text += s; }
    static void counter_start() {}
    static std::uint64_t counter_stop() { return 0; }
};
}  // namespace

TEST_CASE("cortex_m math: SXTB16, SMLAD, PKH as plain arithmetic") {
    namespace cm = litegraph::kernels::cortex_m;
    const std::int8_t b[4] = {-128, 127, -1, 5};
    const std::uint32_t w = cm::load_q7x4(b);
    const std::uint32_t lo = cm::sxtb16(w), hi = cm::sxtb16_ror8(w);
    CHECK(static_cast<std::int16_t>(lo & 0xFFFF) == -128);
    CHECK(static_cast<std::int16_t>(lo >> 16) == -1);
    CHECK(static_cast<std::int16_t>(hi & 0xFFFF) == 127);
    CHECK(static_cast<std::int16_t>(hi >> 16) == 5);
    CHECK(cm::smlad(lo, hi, 10) == 10 + (-128 * 127) + (-1 * 5));
    CHECK(cm::smuad(lo, lo) == 128 * 128 + 1);
    CHECK(cm::smlabb(lo, hi, 7) == 7 + -128 * 127);
    CHECK(cm::smlabt(lo, hi, 7) == 7 + -128 * 5);
    CHECK(cm::smlatb(lo, hi, 7) == 7 + -1 * 127);
    CHECK(cm::smlatt(lo, hi, 7) == 7 + -1 * 5);
    CHECK(cm::pack_lo(lo, hi) == cm::pack_q15(-128, 127));
    CHECK(cm::pack_hi(lo, hi) == cm::pack_q15(-1, 5));
    const std::int8_t c[4] = {3, -4, 100, -100};
    CHECK(cm::dot_q7x4(w, cm::load_q7x4(c), 0) == -128 * 3 + 127 * -4 + -1 * 100 + 5 * -100);
}

TEST_CASE("cortex_m kernels: bit-exact with the reference int8 kernels on every shape") {
    log_text.clear();
    const int failed = dsp_test::run_all<host>();
    INFO(log_text);
    CHECK(failed == 0);
    CHECK(log_text.find("ok ") != std::string::npos);
}

TEST_CASE("cortex_m kernels: the build's best kernels are the reference off the target") {
    namespace k = litegraph::kernels;
    const auto& c = dsp_test::conv_cases[7];  // 3x3
    const auto g = c.geometry();
    CHECK(k::conv2d_int8_best_scratch_words(g) >= k::conv_int8_scratch_words(g));
    CHECK(k::cortex_m::conv_int8_scratch_words(g) >= k::conv_int8_scratch_words(g));
    if constexpr (!k::cortex_m::dsp)
        CHECK(k::conv2d_int8_best_scratch_words(g) == k::conv_int8_scratch_words(g));
}

TEST_CASE("cortex_m requantize: the int8 chain's loop gives the chain's bytes") {
    namespace cm = litegraph::kernels::cortex_m;
    namespace ep = litegraph::kernels::epilogue;
    std::int32_t acc[64];
    std::uint32_t s = 12345;
    for (int i = 0; i < 64; ++i) {
        s = s * 1664525u + 1013904223u;
        acc[i] = static_cast<std::int32_t>(s) >> (i % 24);  // small to huge magnitudes
    }
    acc[0] = INT32_MIN, acc[1] = INT32_MAX, acc[2] = 0;
    const float m[2] = {3.1e-4f, 2.7e-3f}, b[2] = {-4.5f, 0.5f}, k[2] = {1.5f, -0.75f};
    const float inv = 1.f / 0.37f;
    for (int ch = 0; ch < 2; ++ch)
        for (int scaled = 0; scaled < 2; ++scaled) {
            std::int8_t got[64], want[64];
            const auto relu = [](float v) { return v > 0.f ? v : 0.f; };
            if (scaled)
                cm::requantize_run<true>(got, acc, 64, m[ch], k[ch], b[ch], inv, relu);
            else
                cm::requantize_run<false>(got, acc, 64, m[ch], 0.f, b[ch], inv, relu);
            ep::chain<ep::rescale, ep::bias, ep::act<litegraph::ops::act::relu>, ep::quantize_store>
                c{{ep::rescale{m}, ep::bias{b, scaled ? k : nullptr}, {}, ep::quantize_store{inv}}};
            c.emit(want, acc, 64, ep::at{0, ch, 0});
            CAPTURE(ch);
            CAPTURE(scaled);
            CHECK(std::equal(got, got + 64, want));
        }
    // The fc's loop: element j is channel j.
    float mj[64];
    for (int j = 0; j < 64; ++j) mj[j] = 1e-5f * static_cast<float>(j + 1);
    std::int8_t got[64], want[64];
    cm::requantize_channels(got, acc, 64, mj, inv);
    ep::chain<ep::rescale, ep::quantize_store> c{{ep::rescale{mj}, ep::quantize_store{inv}}};
    for (int j = 0; j < 64; ++j) c.write(want, ep::at{0, j, j}, static_cast<float>(acc[j]));
    CHECK(std::equal(got, got + 64, want));
}
