// Runs a generated firmware network (net.hpp, namespace net, written by
// `litegraph codegen --sample-input`) once on its sample input (the
// deterministic one, or the .npy given by codegen --input) and prints
// every output value as the hex bits of the float (exact, no printf), plus
// the instruction count of the inference.  The same file builds for the
// Cortex-M7 under QEMU (platform_arm.hpp: semihosting, SysTick) and on the
// desktop (platform_host.hpp), so both run the same header.
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
#include "platform_arm.hpp"
#else
#include "platform_host.hpp"
#endif

#include "net.hpp"

namespace {

void put_hex(std::uint32_t v) {
    char s[9];
    for (int i = 7; i >= 0; --i, v >>= 4) s[i] = "0123456789abcdef"[v & 15];
    s[8] = 0;
    platform::put(s);
}

void put_dec(std::uint64_t v) {
    char s[21];
    int i = 20;
    s[i] = 0;
    do {
        s[--i] = static_cast<char>('0' + v % 10);
        v /= 10;
    } while (v);
    platform::put(s + i);
}

}  // namespace

int main() {
    for (std::size_t i = 0; i < std::size(net::inputs); ++i)
        std::memcpy(net::input_bytes(i), net::sample_inputs[i],
                    net::inputs[i].elements * net::inputs[i].element_bytes);
    platform::counter_start();
    net::run();
    const std::uint64_t ticks = platform::counter_stop();
    for (std::size_t o = 0; o < std::size(net::outputs); ++o) {
        platform::put("output ");
        put_dec(o);
        platform::put(" ");
        put_dec(net::outputs[o].elements);
        platform::put("\n");
        const float* v = net::output(o);
        for (std::size_t i = 0; i < net::outputs[o].elements; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, v + i, 4);
            put_hex(bits);
            platform::put((i % 8 == 7) ? "\n" : " ");
        }
        platform::put("\n");
    }
    platform::put("ticks ");
    put_dec(ticks);
    platform::put("\ncalibration ");
    put_dec(platform::calibration_ticks());
    platform::put(" ticks for ");
    put_dec(platform::calibration_instructions);
    platform::put(" instructions\nstack ");
    put_dec(platform::stack_used());
    platform::put(" bytes\ndone\n");
    return 0;
}
