// The desktop side of main.cpp: stdout, no counter.
#pragma once

#include <cstdint>
#include <cstdio>

namespace platform {
inline void put(const char* s) {
    std::fputs(s, stdout);
}
inline void counter_start() {}
inline std::uint64_t counter_stop() {
    return 0;
}
inline std::uint32_t stack_used() {
    return 0;  // not measured on the desktop
}
inline constexpr std::uint64_t calibration_instructions = 0;
inline std::uint64_t calibration_ticks() {
    return 0;
}
}  // namespace platform
