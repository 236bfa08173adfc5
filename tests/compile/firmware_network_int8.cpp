// A compile-time int8 network in the form `litegraph codegen` writes for a
// quantized model: quantize -> int8 conv 3x3 (3 -> 4 channels, pad 1,
// rescale + bias + relu + quantize_store) -> int8 max pool 2x2 -> dequantize.
// Its int8 activations take one byte each in the plan, and every value equals
// plain loops written here (symmetric int8, round half away from zero,
// saturating), bit for bit.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "litegraph/firmware/network.hpp"

namespace tiny8 {

inline constexpr int c = 3, oc = 4, h = 8, w = 8, ph = 4, pw = 4;
inline constexpr float in_step = 1.f / 32.f, out_step = 1.f / 8.f, out_deq = out_step;

constexpr std::array<std::int8_t, oc * c * 9> make_filter() {
    std::array<std::int8_t, oc * c * 9> f{};
    for (std::size_t i = 0; i < f.size(); ++i)
        f[i] = static_cast<std::int8_t>(int(i * 37 % 255) - 127);
    return f;
}
alignas(16) constexpr auto filter = make_filter();
alignas(16) constexpr float multiplier[oc] = {1.f / 32768, 1.f / 16384, 1.f / 8192, 3.f / 32768};
alignas(16) constexpr float bias[oc] = {0.5f, -0.25f, 0.f, 1.f};

// Buffers (bytes, first step, last step): float input, int8 input, int8 conv
// output, int8 pooled, float output; steps quantize 0, conv 1, pool 2, dequantize 3.
inline constexpr std::size_t buffer_table[][3] = {{c * h * w * 4, 0, 0},
                                                  {c * h * w, 0, 1},
                                                  {oc * h * w, 1, 2},
                                                  {oc * ph * pw, 2, 3},
                                                  {oc * ph * pw * 4, 3, 3}};
inline constexpr auto buffers = litegraph::planner::buffers_from(buffer_table);
inline constexpr std::array<litegraph::planner::segment, 2> segments{
    {{"dtcm", 512, 64}, {"sram", 1024, 64}}};
inline constexpr auto plan = litegraph::planner::plan_fixed(buffers, segments);
static_assert(litegraph::planner::network_fits<plan.shortfall>());
static_assert(plan.valid);

alignas(64) inline std::byte dtcm[litegraph::firmware::array_bytes(plan.used[0])];
alignas(64) inline std::byte sram[litegraph::firmware::array_bytes(plan.used[1])];
inline std::byte* const segment_bases[] = {dtcm, sram};

namespace lf = litegraph::fusion;
namespace la = litegraph::ops::act;
using conv_type = lf::fused_int8<lf::act<la::relu>, lf::quantize_store>;
inline constexpr auto network = [] {
    using namespace litegraph::firmware;
    return make_network(
        layer<litegraph::ops::quantize_int8>{{in_step, c * h * w}, {{{0, 0}}}, {1, 0}},
        layer<conv_type>{
            {{1, c, h, w, oc, 3, 3, h, w, 1, 1, 1, 1, 1, 1, 1, 1, 1},
             out_step,
             {lf::rescale{}, lf::bias{}, lf::act<la::relu>{}, lf::quantize_store{}},
             1},
            {{{1, 0}}, {{-1, 0}, filter.data()}, {{-1, 0}, multiplier}, {{-1, 0}, bias}, {}},
            {2, 0}},
        layer<litegraph::ops::pool2d_int8>{
            {{true, true, false}, {1, oc, h, w, 2, 2, 2, 2, 0, 0, 0, 0, ph, pw}},
            {{{2, 0}}},
            {3, 0}},
        layer<litegraph::ops::dequantize_int8>{{out_deq, oc * ph * pw}, {{{3, 0}}}, {4, 0}});
}();
alignas(16) inline std::byte scratch[network.scratch_bytes()];
inline constexpr litegraph::firmware::memory<buffers.size(), segments.size()> memory{
    &plan, segment_bases, scratch};

}  // namespace tiny8

static_assert(tiny8::network.size() == 4);
// int8 activations are one byte per element in the plan.
static_assert(tiny8::buffers[1].size == tiny8::c * tiny8::h * tiny8::w);

namespace {
std::int8_t sat8(float v) {
    const float r = std::round(v);
    return static_cast<std::int8_t>(r < -128.f ? -128 : (r > 127.f ? 127 : static_cast<int>(r)));
}
}  // namespace

int main() {
    using namespace tiny8;
    float x[c][h][w];
    for (int i = 0; i < c; ++i)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z)
                x[i][y][z] = 5.f * std::sin(0.37f * float((i * h + y) * w + z));
    std::memcpy(memory.f32({0, 0}), x, sizeof x);
    network.run(memory);

    std::int8_t q[c][h][w], a[oc][h][w];
    for (int i = 0; i < c; ++i)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) q[i][y][z] = sat8(x[i][y][z] * (1.f / in_step));
    for (int o = 0; o < oc; ++o)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) {
                std::int32_t s = 0;
                for (int i = 0; i < c; ++i)
                    for (int ky = 0; ky < 3; ++ky)
                        for (int kx = 0; kx < 3; ++kx) {
                            const int iy = y + ky - 1, ix = z + kx - 1;
                            if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                                s += filter[std::size_t(((o * c + i) * 3 + ky) * 3 + kx)] *
                                     q[i][iy][ix];
                        }
                float v = float(s) * multiplier[o] + bias[o];
                v = v > 0.f ? v : 0.f;
                a[o][y][z] = sat8(v * (1.f / out_step));
            }
    int bad = 0, saturated = 0;
    const float* got = memory.f32({4, 0});
    for (int o = 0; o < oc; ++o)
        for (int y = 0; y < ph; ++y)
            for (int z = 0; z < pw; ++z) {
                int m = -128;
                for (int ky = 0; ky < 2; ++ky)
                    for (int kx = 0; kx < 2; ++kx)
                        m = std::max<int>(m, a[o][2 * y + ky][2 * z + kx]);
                saturated += m == 127;
                const float want = float(m) * out_deq, g = got[(o * ph + y) * pw + z];
                if (std::memcmp(&want, &g, 4) != 0) {
                    std::printf("(%d, %d, %d): static network %g, plain loops %g\n", o, y, z, g,
                                want);
                    ++bad;
                }
            }
    if (bad == 0)
        std::printf(
            "static int8 network: %d values bit-exact with the plain loops (%d saturated)\n",
            oc * ph * pw, saturated);
    return bad == 0 ? 0 : 1;
}
