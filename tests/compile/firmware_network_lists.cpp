// A firmware network in the form `litegraph codegen` writes for the tail
// of a text recognizer: transpose2 ([1, I, T] -> [T, 1, I]), two
// fill_constant_batch_size_like (h0, c0), a bidirectional LSTM whose PreState
// list holds two planned tensors and whose WeightList holds eight weight
// arrays (list operands, firmware/network.hpp), then scale.  What it computes
// equals plain loops written here, the LSTM in double (to 1e-5).
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "litegraph/firmware/network.hpp"

namespace lists_net {

inline constexpr int in = 3, steps = 5, hidden = 4, gates = 4, dirs = 2;

template <std::size_t N>
constexpr std::array<float, N> make(int seed) {
    std::array<float, N> v{};
    for (std::size_t i = 0; i < N; ++i)
        v[i] =
            static_cast<float>(int((i * 7 + static_cast<std::size_t>(seed) * 13) % 17) - 8) / 16.f;
    return v;
}
// Per direction: weight_ih [G*H, I], weight_hh [G*H, H], bias_ih, bias_hh [G*H].
alignas(16) constexpr auto wih0 = make<gates * hidden * in>(1);
alignas(16) constexpr auto whh0 = make<gates * hidden * hidden>(2);
alignas(16) constexpr auto wih1 = make<gates * hidden * in>(3);
alignas(16) constexpr auto whh1 = make<gates * hidden * hidden>(4);
alignas(16) constexpr auto bih0 = make<gates * hidden>(5);
alignas(16) constexpr auto bhh0 = make<gates * hidden>(6);
alignas(16) constexpr auto bih1 = make<gates * hidden>(7);
alignas(16) constexpr auto bhh1 = make<gates * hidden>(8);

using litegraph::firmware::operand;
// PreState: h0 and c0, planned buffers 2 and 3; WeightList in Paddle's order.
inline constexpr operand pre_state[] = {{{2, 0}}, {{3, 0}}};
inline constexpr operand weight_list[] = {
    {{-1, 0}, wih0.data()}, {{-1, 0}, whh0.data()}, {{-1, 0}, wih1.data()}, {{-1, 0}, whh1.data()},
    {{-1, 0}, bih0.data()}, {{-1, 0}, bhh0.data()}, {{-1, 0}, bih1.data()}, {{-1, 0}, bhh1.data()}};

inline constexpr float h0_value = 0.25f, c0_value = -0.5f;

inline constexpr auto network = [] {
    using namespace litegraph::firmware;
    namespace ops = litegraph::ops;
    return make_network(
        layer<ops::transpose2>{
            {3, 4, {steps, 1, in, 0, 0, 0}, {1, in * steps, steps, 0, 0, 0}}, {{{0, 0}}}, {1, 0}},
        layer<ops::fill_constant_batch_size_like>{
            {dirs * hidden, 4, std::bit_cast<std::uint32_t>(h0_value), 0}, {{{1, 0}}}, {2, 0}},
        layer<ops::fill_constant_batch_size_like>{
            {dirs * hidden, 4, std::bit_cast<std::uint32_t>(c0_value), 0}, {{{1, 0}}}, {3, 0}},
        layer<ops::rnn>{{0, 1, dirs, steps, 1, in, hidden},
                        {{{1, 0}}, {{}, nullptr, pre_state, 2}, {{}, nullptr, weight_list, 8}},
                        {4, 0},
                        {6, 0}},
        layer<ops::scale>{{steps * dirs * hidden, 2.f, 0.5f}, {{{4, 0}}}, {5, 0}});
}();

// Buffers: x, its transpose, h0, c0, the LSTM's Out, the scaled Out, the
// LSTM's scratch (its step only).
inline constexpr std::size_t buffer_table[][3] = {
    {in * steps * 4, 0, 0},
    {in * steps * 4, 0, 3},
    {dirs * hidden * 4, 1, 3},
    {dirs * hidden * 4, 2, 3},
    {steps * dirs * hidden * 4, 3, 4},
    {steps * dirs * hidden * 4, 4, 4},
    {litegraph::firmware::planned_scratch_bytes(std::get<3>(network.layers)), 3, 3}};
inline constexpr auto buffers = litegraph::planner::buffers_from(buffer_table);
inline constexpr std::array<litegraph::planner::segment, 1> segments{{{"sram", 4096, 64}}};
inline constexpr auto plan = litegraph::planner::plan_fixed(buffers, segments);
static_assert(litegraph::planner::network_fits<plan.shortfall>());
static_assert(plan.valid);

alignas(64) inline std::byte sram[litegraph::firmware::array_bytes(plan.used[0])];
inline std::byte* const segment_bases[] = {sram};
alignas(16) inline std::byte scratch[network.scratch_bytes()];
inline constexpr litegraph::firmware::memory<buffers.size(), segments.size()> memory{
    &plan, segment_bases, scratch};

}  // namespace lists_net

namespace {
double sig(double v) {
    return 1.0 / (1.0 + std::exp(-v));
}
}  // namespace

int main() {
    using namespace lists_net;
    // x [1, I, T]
    float x[in][steps];
    for (int i = 0; i < in; ++i)
        for (int t = 0; t < steps; ++t) x[i][t] = std::sin(0.37f * float(i * steps + t));
    // A stale value where h0 and c0 will be: the fills must overwrite it.
    std::memset(sram, 0x7f, sizeof sram);
    std::memcpy(memory.f32({0, 0}), x, sizeof x);
    network.run(memory);

    // The LSTM in double over the transposed x, then the scale.
    const float* wih[] = {wih0.data(), wih1.data()};
    const float* whh[] = {whh0.data(), whh1.data()};
    const float* bih[] = {bih0.data(), bih1.data()};
    const float* bhh[] = {bhh0.data(), bhh1.data()};
    double out[steps][dirs * hidden];
    for (int d = 0; d < dirs; ++d) {
        double h[hidden], c[hidden];
        for (int k = 0; k < hidden; ++k) h[k] = h0_value, c[k] = c0_value;
        for (int s = 0; s < steps; ++s) {
            const int t = d == 0 ? s : steps - 1 - s;
            double g[gates * hidden];
            for (int j = 0; j < gates * hidden; ++j) {
                double a = double(bih[d][j]) + double(bhh[d][j]);
                for (int q = 0; q < in; ++q) a += double(wih[d][j * in + q]) * x[q][t];
                for (int q = 0; q < hidden; ++q) a += double(whh[d][j * hidden + q]) * h[q];
                g[j] = a;
            }
            for (int k = 0; k < hidden; ++k) {
                const double ig = sig(g[k]), fg = sig(g[hidden + k]);
                const double cg = std::tanh(g[2 * hidden + k]), og = sig(g[3 * hidden + k]);
                c[k] = fg * c[k] + ig * cg;
                h[k] = og * std::tanh(c[k]);
                out[t][d * hidden + k] = h[k];
            }
        }
    }
    const float* got = memory.f32({5, 0});
    int bad = 0;
    for (int t = 0; t < steps; ++t)
        for (int k = 0; k < dirs * hidden; ++k) {
            const double want = 2.0 * out[t][k] + 0.5;
            const float v = got[t * dirs * hidden + k];
            if (!(std::fabs(v - want) <= 1e-5 * std::fmax(1.0, std::fabs(want)))) {
                std::printf("step %d unit %d: static network %g, plain loops %g\n", t, k, v, want);
                ++bad;
            }
        }
    if (bad == 0)
        std::printf("static network with list operands: %d values equal the plain loops\n",
                    steps * dirs * hidden);
    return bad == 0 ? 0 : 1;
}
