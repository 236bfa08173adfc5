// The Cortex-M DSP int8 kernels on the desktop: the same kernels, on
// math.hpp's portable fallback of the ARMv7E-M instructions, against the
// reference int8 kernels on every shape of tests/firmware/dsp_cases.hpp (the
// firmware test runs the same cases on the real instructions under QEMU).
// Also the fallback instructions themselves against plain arithmetic.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

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
