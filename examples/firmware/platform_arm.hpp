// The Cortex-M side of main.cpp: output through semihosting and an
// instruction counter from SysTick.  Under `qemu-system-arm -icount shift=0`
// every instruction advances virtual time by 1 ns and SysTick counts the CPU
// clock, so ticks are instructions times a fixed ratio; calibration_ticks()
// measures that ratio on a loop of known length (two instructions per turn).
#pragma once

#include <cstdint>

extern "C" std::uint32_t __stack_bottom[], __stack_top[];  // sections.ld

namespace platform {

inline int semihost(int op, const void* arg) {
    register int r0 __asm__("r0") = op;
    register const void* r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

inline void put(const char* s) {
    semihost(0x04, s);  // SYS_WRITE0
}

[[noreturn]] inline void exit(int code) {
    const std::uint32_t block[2] = {0x20026u, static_cast<std::uint32_t>(code)};
    semihost(0x20, block);  // SYS_EXIT_EXTENDED: ADP_Stopped_ApplicationExit, code
    for (;;) {
    }
}

namespace systick {
inline volatile std::uint32_t& csr = *reinterpret_cast<volatile std::uint32_t*>(0xE000E010u);
inline volatile std::uint32_t& rvr = *reinterpret_cast<volatile std::uint32_t*>(0xE000E014u);
inline volatile std::uint32_t& cvr = *reinterpret_cast<volatile std::uint32_t*>(0xE000E018u);
inline volatile std::uint32_t wraps = 0;
}  // namespace systick

inline void counter_start() {
    systick::csr = 0;
    systick::wraps = 0;
    systick::rvr = 0xFFFFFFu;
    systick::cvr = 0;
    systick::csr = 7;  // enable, interrupt on wrap, processor clock
}

inline std::uint64_t counter_stop() {
    std::uint32_t w, v;
    do {
        w = systick::wraps;
        v = systick::cvr;
    } while (w != systick::wraps);
    systick::csr = 0;
    return (std::uint64_t{w} << 24) + (0xFFFFFFu - v);
}

/// The stack's lowest word that still holds the pattern startup.cpp wrote below
/// its frame marks how deep the program went: bytes used from the top.
inline constexpr std::uint32_t stack_pattern = 0x5EEDF00Du;

inline std::uint32_t stack_used() {
    const std::uint32_t* p = __stack_bottom;
    while (p < __stack_top && *p == stack_pattern) ++p;
    return static_cast<std::uint32_t>(reinterpret_cast<const char*>(__stack_top) -
                                      reinterpret_cast<const char*>(p));
}

inline constexpr std::uint64_t calibration_instructions = 2000000;

inline std::uint64_t calibration_ticks() {
    counter_start();
    std::uint32_t n = calibration_instructions / 2;
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
    return counter_stop();
}

}  // namespace platform
