// Memory maps of real chips as data: the regions a firmware image is linked
// into, and the ones the planner spreads activations over, fastest first.
// `--segments stm32h730` on plan, codegen and examples/firmware/run.sh is the
// activation part of one of these; the linker script of the same chip
// (examples/firmware/stm32h730.ld) is checked against it by a test.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "litegraph/planner/model.hpp"

namespace litegraph::planner {

/// What a region of a chip holds in a litegraph firmware image.
enum class region_role {
    activations,  // a planned segment: activation buffers and kernel scratch
    code,         // program code, read-only data, .data's load image
    weights,      // the network's constant weights (memory-mapped, read-only)
    data,         // the image's own .data, .bss and stack
};

struct memory_region {
    std::string_view name;  // segment name (activations) or linker region name
    std::uint64_t origin = 0;
    std::uint64_t length = 0;
    region_role role = region_role::activations;
    std::string_view what;  // the bus / domain, for the docs and --help
};

struct memory_map {
    std::string_view name;
    std::string_view source;  // where the addresses come from
    /// Every region; the activation ones in the planner's order (fastest first).
    std::span<const memory_region> regions;
};

namespace targets {

/// STM32H730 (Cortex-M7, 550 MHz), memory map of RM0468 (STM32H723/733, H725/735
/// and H730 reference manual), section 2.3 "Memory organization" (Figure 7 and
/// Table 7, the register boundary addresses of the memories), with the user option
/// TCM_AXI_SHARED at its default (00: ITCM 64 KB, AXI SRAM 128 + 192 KB). The
/// value-line H730 has 128 KB of internal flash (code) and boots boards that keep
/// the rest in external flash on OCTOSPI1, memory-mapped at 0x90000000 (weights).
///
/// Activation order: the TCMs first (zero wait states at the core clock, never
/// behind a cache, DTCM on two 32-bit data ports, ITCM on a 64-bit port the data
/// side reaches too: code stays in flash behind the I-cache, so the ITCM is free for
/// data), then the AXI SRAM (D1 domain, 64-bit AXI bus matrix, through the L1
/// D-cache), then SRAM1 and SRAM2 (D2 domain, 32-bit AHB behind the D1-to-D2 bridge),
/// last SRAM4 (D3 domain, one more bridge). The image's own .data, .bss and stack
/// go to the 4 KB backup SRAM (D3), so that every byte of the six activation
/// regions is the planner's: 128 KB + 436 KB (ITCM 64 + AXI 320 + SRAM1/2/4 16
/// each + backup 4) is the chip's whole 564 KB of RAM (but the ITCM's first 64 bytes,
/// at the null pointer's address).
inline constexpr std::array<memory_region, 9> stm32h730_regions{{
    {"dtcm", 0x20000000, 128 * 1024, region_role::activations, "DTCM, 0 wait states"},
    // The ITCM starts at address 0, the null pointer: its first 64 bytes stay unused.
    {"itcm", 0x00000040, 64 * 1024 - 64, region_role::activations, "ITCM, 0 wait states"},
    {"axi", 0x24000000, 320 * 1024, region_role::activations, "AXI SRAM, D1, cached"},
    {"sram1", 0x30000000, 16 * 1024, region_role::activations, "SRAM1, D2 AHB"},
    {"sram2", 0x30004000, 16 * 1024, region_role::activations, "SRAM2, D2 AHB"},
    {"sram4", 0x38000000, 16 * 1024, region_role::activations, "SRAM4, D3 AHB"},
    {"FLASH", 0x08000000, 128 * 1024, region_role::code, "internal flash"},
    {"OSPI", 0x90000000, 8 * 1024 * 1024, region_role::weights, "OCTOSPI1, memory-mapped"},
    {"BKPSRAM", 0x38800000, 4 * 1024, region_role::data, "backup SRAM, D3"},
}};

inline constexpr memory_map stm32h730{"stm32h730", "RM0468 section 2.3, Table 7",
                                      stm32h730_regions};

inline constexpr std::array<memory_map, 1> all{{stm32h730}};

}  // namespace targets

/// The map of a chip by name ("stm32h730"), or nullptr.
constexpr const memory_map* find_memory_map(std::string_view name) {
    for (const auto& m : targets::all)
        if (m.name == name) return &m;
    return nullptr;
}

/// The planner segments of a map: its activation regions in order, 64-byte aligned.
inline std::vector<segment> activation_segments(const memory_map& m) {
    std::vector<segment> s;
    for (const auto& r : m.regions)
        if (r.role == region_role::activations)
            s.push_back({r.name, static_cast<std::size_t>(r.length), 64});
    return s;
}

}  // namespace litegraph::planner
