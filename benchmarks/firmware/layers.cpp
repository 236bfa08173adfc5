// Bare-metal bench firmware: whole int8 layers as a firmware network runs
// them (the op's run_form: the Cortex-M DSP accumulation, then the requantize
// chain rescale -> bias -> quantize_store, int8 stored), on the shapes of
// ARM's CMSIS-NN figures.  Each layer is first checked bit for bit against
// the same op on the reference kernel (fused_int8::run_with over
// kernels::conv2d_int8; mul_int8 on int8_kernel::reference through the
// generic chain; tests/kernels/cortex_m.cpp checks the requantize loop
// against the chain),
// then timed with SysTick.  One line per shape:
//   "layer <key> <ticks> <MACs> ok|FAIL"
// then the same conv shapes in fp32 (fused<conv2d, bias, act<relu>>): the
// firmware kernels over the filter packed as codegen packs it, against the
// row loop (the runtime's reference kernel), within 1e-5:
//   "fp32 <key> <fast ticks> <row-loop ticks> <MACs> ok|FAIL"
// and the calibration line (ticks of a loop of known length).  Built and run
// under qemu-system-arm -M mps2-an500 -icount shift=0 by
// benchmarks/firmware/figures.sh --layers; exit code = the layers that differ.
#include <cstdint>
#include <cstring>

#include "dsp_cases.hpp"  // put_dec
#include "litegraph/fusion/fused.hpp"
#include "litegraph/fusion/fused_int8.hpp"
#include "litegraph/ops/int8/mul_int8.hpp"
#include "platform_arm.hpp"

namespace {

namespace lf = litegraph::fusion;
namespace lk = litegraph::kernels;
using layer_op = lf::fused_int8<lf::quantize_store>;

constexpr std::int64_t max_elems = 16384, max_scratch = 4096;
alignas(8) std::int8_t x_buf[max_elems];
alignas(8) std::int8_t f_buf[max_elems];
alignas(8) std::int8_t out_fast[max_elems], out_ref[max_elems];
std::uint32_t y_packed[max_elems / 2 + 64];
float mult[256], bias_v[256];
float xf[max_elems], ff[max_elems], fpk[max_elems + 64], of_fast[max_elems], of_ref[max_elems];
alignas(8) std::int64_t scratch[max_scratch];

struct arm {
    static void put(const char* s) { platform::put(s); }
};
void put_dec(std::uint64_t v) {
    dsp_test::put_dec<arm>(v);
}

void fill(std::int8_t* p, std::int64_t n, std::uint32_t seed) {
    std::uint32_t s = seed * 2654435761u + 1u;
    for (std::int64_t i = 0; i < n; ++i) {
        s = s * 1664525u + 1013904223u;
        p[i] = static_cast<std::int8_t>(s >> 24);
    }
}

/// Multipliers and biases that spread the outputs over the int8 range
/// (some saturate): acc's spread is about 5500 sqrt(K) for random int8.
void fill_requant(std::int64_t channels, std::int64_t k, std::uint32_t seed) {
    std::uint32_t s = seed;
    float sq = 1.f;
    while (sq * sq < static_cast<float>(k)) sq += 1.f;
    for (std::int64_t c = 0; c < channels; ++c) {
        s = s * 1664525u + 1013904223u;
        mult[c] = (0.5f + static_cast<float>(s >> 24) / 256.f) * 60.f / (5500.f * sq);
        bias_v[c] = static_cast<float>(static_cast<std::int32_t>(s >> 16 & 63u) - 32);
    }
}

struct conv_shape {
    const char* key;
    std::int64_t c, h, w, oc, k, s, p, groups;
    litegraph::ops::conv2d::geometry geometry() const {
        litegraph::ops::conv2d::geometry g{};
        g.n = 1, g.c = c, g.h = h, g.w = w, g.oc = oc, g.kh = k, g.kw = k;
        g.sh = g.sw = s, g.dh = g.dw = 1, g.pt = g.pb = g.pl = g.pr = p, g.groups = groups;
        g.oh = (h + 2 * p - k) / s + 1, g.ow = (w + 2 * p - k) / s + 1;
        return g;
    }
};

// clang-format off
constexpr conv_shape conv_shapes[] = {
    {"c1x1_32_32_16", 32, 16, 16, 32, 1, 1, 0, 1},
    {"c1x1_64_64_8",  64,  8,  8, 64, 1, 1, 0, 1},
    {"c1x1_16_64_16", 16, 16, 16, 64, 1, 1, 0, 1},
    {"c3x3_16_16_16", 16, 16, 16, 16, 3, 1, 1, 1},
    {"dw3_32_16_s1",  32, 16, 16, 32, 3, 1, 1, 32},
    {"dw3_32_16_s2",  32, 16, 16, 32, 3, 2, 1, 32},
    {"dw3_16_32_s2",  16, 32, 32, 16, 3, 2, 1, 16},
    {"dw5_32_16_s1",  32, 16, 16, 32, 5, 1, 2, 32},
    {"dw5_32_16_s2",  32, 16, 16, 32, 5, 2, 2, 32},
};
// clang-format on

void line(const char* key, std::uint64_t ticks, std::int64_t macs, bool ok) {
    platform::put("layer ");
    platform::put(key);
    platform::put(" ");
    put_dec(ticks);
    platform::put(" ");
    put_dec(static_cast<std::uint64_t>(macs));
    platform::put(ok ? " ok\n" : " FAIL\n");
}

bool same(std::int64_t count) {
    return std::memcmp(out_fast, out_ref, static_cast<std::size_t>(count)) == 0;
}

int run_conv(const conv_shape& sh, std::uint32_t seed) {
    const auto g = sh.geometry();
    const std::int64_t kk = (g.c / g.groups) * g.kh * g.kw;
    const std::int64_t count = g.oc * g.oh * g.ow;
    fill(x_buf, g.c * g.h * g.w, seed);
    fill(f_buf, g.oc * kk, seed + 1);
    fill_requant(g.oc, kk, seed + 2);
    const layer_op::form form{g, 1.f, {}, 1};
    litegraph::firmware_io io;
    io.in = {x_buf, f_buf, mult, bias_v, nullptr, nullptr};
    io.out = out_fast;
    io.scratch = scratch;
    if (layer_op::scratch_bytes(form) > sizeof scratch) {
        platform::put("FAIL (scratch too small) ");
        platform::put(sh.key);
        platform::put("\n");
        return 1;
    }
    // The reference: the same chain bound the same way, on kernels::conv2d_int8.
    layer_op::chain_type c{form.stages};
    lf::stage_operands ops;
    ops.multiplier = mult;
    ops.bias = bias_v;
    ops.output_step = form.output_step;
    layer_op::bind(c, ops);
    std::memset(out_ref, 0x5A, sizeof out_ref);
    layer_op::run_with(lk::conv2d_int8, lk::conv_geometry::from(g), c, x_buf, f_buf, out_ref,
                       scratch);
    std::memset(out_fast, 0x33, sizeof out_fast);
    platform::counter_start();
    layer_op::run_form(form, io);
    const std::uint64_t t = platform::counter_stop();
    const bool ok = same(count);
    line(sh.key, t, g.oc * g.oh * g.ow * kk, ok);
    return ok ? 0 : 1;
}

int run_fc(const char* key, std::int64_t k, std::int64_t n, std::uint32_t seed) {
    using litegraph::ops::mul_int8;
    fill(x_buf, k, seed);
    fill(f_buf, k * n, seed + 1);
    fill_requant(n, k, seed + 2);
    // Y packed as `litegraph codegen` packs it for the firmware form.
    const mul_int8::form form = mul_int8::packed_form({1, k, n, 1.f});
    if (mul_int8::packed_words(form, 1) > sizeof y_packed / 4 ||
        mul_int8::scratch_bytes(form) > sizeof scratch) {
        platform::put("FAIL (buffers too small) ");
        platform::put(key);
        platform::put("\n");
        return 1;
    }
    mul_int8::pack_words(form, 1, f_buf, y_packed);
    litegraph::firmware_io io;
    io.in = {x_buf, y_packed, mult, nullptr, nullptr, nullptr};
    io.out = out_fast;
    io.scratch = scratch;
    std::memset(out_ref, 0x5A, sizeof out_ref);
    mul_int8::compute(1, k, n, x_buf, f_buf, mult, 1.f, out_ref, scratch,
                      litegraph::ops::int8_detail::int8_kernel::reference);
    std::memset(out_fast, 0x33, sizeof out_fast);
    platform::counter_start();
    mul_int8::run_form(form, io);
    const std::uint64_t t = platform::counter_stop();
    const bool ok = same(n);
    line(key, t, k * n, ok);
    return ok ? 0 : 1;
}

using f32_op = lf::fused<litegraph::ops::conv2d, lf::bias, lf::act<litegraph::ops::act::relu>>;

float unit(std::uint32_t& s) {
    s = s * 1664525u + 1013904223u;
    return static_cast<float>(s >> 8) / 8388608.f - 1.f;
}

int run_f32(const conv_shape& sh, std::uint32_t seed) {
    const auto g = sh.geometry();
    const std::int64_t kk = (g.c / g.groups) * g.kh * g.kw;
    const std::int64_t count = g.oc * g.oh * g.ow;
    for (std::int64_t i = 0; i < g.c * g.h * g.w; ++i) xf[i] = unit(seed);
    for (std::int64_t i = 0; i < g.oc * kk; ++i) ff[i] = unit(seed);
    for (std::int64_t i = 0; i < g.oc; ++i) bias_v[i] = unit(seed);
    f32_op::form slow{g, {}, 1, false, false};
    const f32_op::form fast = f32_op::packed_form(slow);
    const float* filter = ff;
    if (f32_op::packed_floats(fast, 1)) {
        f32_op::pack_input(fast, 1, ff, fpk);
        filter = fpk;
    }
    if (f32_op::scratch_bytes(slow) > sizeof scratch ||
        f32_op::scratch_bytes(fast) > sizeof scratch) {
        platform::put("FAIL (scratch too small) fp32 ");
        platform::put(sh.key);
        platform::put("\n");
        return 1;
    }
    litegraph::firmware_io io;
    io.in = {xf, ff, bias_v, nullptr, nullptr, nullptr};
    io.out = of_ref;
    io.scratch = scratch;
    platform::counter_start();
    f32_op::run_form(slow, io);
    const std::uint64_t tr = platform::counter_stop();
    io.in[1] = filter;
    io.out = of_fast;
    platform::counter_start();
    f32_op::run_form(fast, io);
    const std::uint64_t tf = platform::counter_stop();
    bool ok = true;
    for (std::int64_t i = 0; i < count; ++i) {
        const float d = of_fast[i] - of_ref[i], m = of_ref[i] < 0 ? -of_ref[i] : of_ref[i];
        if ((d < 0 ? -d : d) > 1e-5f * (m > 1.f ? m : 1.f)) ok = false;
    }
    platform::put("fp32 ");
    platform::put(sh.key);
    platform::put(" ");
    put_dec(tf);
    platform::put(" ");
    put_dec(tr);
    platform::put(" ");
    put_dec(static_cast<std::uint64_t>(g.oc * g.oh * g.ow * kk));
    platform::put(ok ? " ok\n" : " FAIL\n");
    return ok ? 0 : 1;
}

}  // namespace

int main() {
    int failed = 0;
    std::uint32_t seed = 11;
    for (const auto& s : conv_shapes) failed += run_conv(s, seed += 3);
    failed += run_fc("fc_256_64", 256, 64, seed += 3);
    for (const auto& s : conv_shapes) failed += run_f32(s, seed += 3);
    const std::uint64_t cal = platform::calibration_ticks();
    platform::put("calibration ");
    put_dec(cal);
    platform::put(" ticks for ");
    put_dec(platform::calibration_instructions);
    platform::put(" instructions\n");
    platform::put(failed ? "FAILED\n" : "done\n");
    return failed;
}
