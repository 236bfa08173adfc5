// A small firmware network in the form `litegraph codegen` writes:
// conv 3x3 (3 -> 4 channels, pad 1) + bias + relu, in place depthwise 3x3 +
// bias, then a global average pool, planned over two segments whose sizes
// the includer picks (STATIC_NET_DTCM, STATIC_NET_SRAM).
#pragma once

#include <array>
#include <cstddef>

#include "litegraph/firmware/network.hpp"

namespace tiny {

inline constexpr int c = 3, oc = 4, h = 8, w = 8;

constexpr std::array<float, oc * c * 9> make_filter() {
    std::array<float, oc * c * 9> f{};
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(int(i * 7 % 11) - 5) / 8.f;
    return f;
}
constexpr std::array<float, oc * 9> make_dw() {
    std::array<float, oc * 9> f{};
    for (std::size_t i = 0; i < f.size(); ++i) f[i] = static_cast<float>(int(i * 5 % 7) - 3) / 4.f;
    return f;
}
alignas(16) constexpr auto filter = make_filter();
alignas(16) constexpr auto dw = make_dw();
alignas(16) constexpr float bias[oc] = {0.5f, -0.25f, 0.f, 1.f};
alignas(16) constexpr float dw_bias[oc] = {-0.5f, 0.25f, 0.125f, 0.f};

// Buffers: the input (step 0), the conv output and the depthwise output over
// it (one alias group, steps 0-2), the pooled output (steps 2-2).
inline constexpr std::size_t buffer_table[][3] = {
    {c * h * w * 4, 0, 0}, {oc * h * w * 4, 0, 2}, {64, 2, 2}};
inline constexpr auto buffers = litegraph::planner::buffers_from(buffer_table);
inline constexpr std::array<litegraph::planner::segment, 2> segments{
    {{"dtcm", STATIC_NET_DTCM, 64}, {"sram", STATIC_NET_SRAM, 64}}};
inline constexpr auto plan = litegraph::planner::plan_fixed(buffers, segments);
static_assert(litegraph::planner::network_fits<plan.shortfall>());

inline constexpr std::size_t dtcm_bytes = litegraph::firmware::array_bytes(plan.used[0]);
alignas(64) inline std::byte dtcm[dtcm_bytes];
inline constexpr std::size_t sram_bytes = litegraph::firmware::array_bytes(plan.used[1]);
alignas(64) inline std::byte sram[sram_bytes];
inline std::byte* const segment_bases[] = {dtcm, sram};

namespace lf = litegraph::fusion;
namespace la = litegraph::ops::act;
inline constexpr auto network = [] {
    using namespace litegraph::firmware;
    using conv_relu = lf::fused<litegraph::ops::conv2d, lf::bias, lf::act<la::relu>>;
    using depthwise = lf::fused<litegraph::ops::conv2d, lf::bias>;
    return make_network(
        layer<conv_relu>{{{1, c, h, w, oc, 3, 3, h, w, 1, 1, 1, 1, 1, 1, 1, 1, 1},
                          {lf::bias{}, lf::act<la::relu>{}},
                          1,
                          false},
                         {{{0, 0}}, {{-1, 0}, filter.data()}, {{-1, 0}, bias}, {}, {}},
                         {1, 0}},
        layer<depthwise>{
            {{1, oc, h, w, oc, 3, 3, h, w, 1, 1, 1, 1, 1, 1, 1, 1, oc}, {lf::bias{}}, 1, true},
            {{{1, 0}}, {{-1, 0}, dw.data()}, {{-1, 0}, dw_bias}, {}, {}},
            {1, 0}},
        layer<litegraph::ops::pool2d>{
            {{false, true, false}, {1, oc, h, w, h, w, 1, 1, 0, 0, 0, 0, 1, 1}},
            {{{1, 0}}},
            {2, 0}});
}();
inline constexpr std::size_t scratch_bytes = network.scratch_bytes();
alignas(16) inline std::byte scratch[scratch_bytes];
inline constexpr litegraph::firmware::memory<buffers.size(), segments.size()> memory{
    &plan, segment_bases, scratch};

}  // namespace tiny
