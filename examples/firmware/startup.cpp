// Minimal Cortex-M7 startup: the vector table, FPU on, .data copied, .bss
// zeroed, constructors run, main's result handed to the debugger through
// semihosting (QEMU exits with it), the stack painted for
// platform::stack_used().  No C library start-up, no heap.
#include <cstdint>

#include "platform_arm.hpp"

extern "C" {
extern std::uint32_t __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
extern std::uint32_t __stack_bottom[], __stack_top[];
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();
int main();
void SysTick_Handler();

[[noreturn]] void Reset_Handler() {
    // Full access to CP10 and CP11 (the FPU) before any float instruction.
    auto& cpacr = *reinterpret_cast<volatile std::uint32_t*>(0xE000ED88u);
    cpacr = cpacr | (0xFu << 20);
    __asm__ volatile("dsb\n isb" ::: "memory");
    for (std::uint32_t *s = __data_load, *d = __data_start; d < __data_end;) *d++ = *s++;
    for (std::uint32_t* d = __bss_start; d < __bss_end;) *d++ = 0;
    // The stack below this frame gets a pattern, so that platform::stack_used()
    // can find how deep the program went.
    std::uint32_t* sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    for (std::uint32_t* d = __stack_bottom; d < sp - 16;) *d++ = platform::stack_pattern;
    for (auto f = __init_array_start; f < __init_array_end; ++f) (*f)();
    platform::exit(main());
}

void SysTick_Handler() {
    platform::systick::wraps = platform::systick::wraps + 1;
}

[[noreturn]] void Fault_Handler() {
    platform::put("litegraph firmware: fault\n");
    platform::exit(3);
}

__attribute__((section(".isr_vector"), used)) void (*const vector_table[16])() = {
    reinterpret_cast<void (*)()>(__stack_top),
    Reset_Handler,
    Fault_Handler,  // NMI
    Fault_Handler,  // HardFault
    Fault_Handler,  // MemManage
    Fault_Handler,  // BusFault
    Fault_Handler,  // UsageFault
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    Fault_Handler,  // SVCall
    Fault_Handler,  // DebugMon
    nullptr,
    Fault_Handler,  // PendSV
    SysTick_Handler,
};
}
