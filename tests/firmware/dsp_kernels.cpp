// Bare-metal test firmware: the Cortex-M DSP int8 kernels bit-exact against
// the reference int8 kernels (dsp_cases.hpp), then the SysTick ticks of both
// on the bench shapes.  Built and run under QEMU (mps2-an386 Cortex-M4,
// mps2-an500 Cortex-M7) by tests/firmware/dsp_kernels.sh; exit code = the
// number of failed cases.
#include <cstdint>

#include "dsp_cases.hpp"
#include "platform_arm.hpp"

namespace {
struct arm {
    static void put(const char* s) { platform::put(s); }
    static void counter_start() { platform::counter_start(); }
    static std::uint64_t counter_stop() { return platform::counter_stop(); }
};
}  // namespace

int main() {
    arm::put(litegraph::kernels::cortex_m::dsp ? "kernels: DSP (ARMv7E-M SIMD)\n"
                                               : "kernels: portable fallback (no DSP)\n");
    const int failed = dsp_test::run_all<arm>();
    const std::uint64_t cal = platform::calibration_ticks();
    arm::put("calibration ");
    dsp_test::put_dec<arm>(cal);
    arm::put(" ticks for ");
    dsp_test::put_dec<arm>(platform::calibration_instructions);
    arm::put(" instructions\n");
    dsp_test::measure<arm>();
    arm::put(failed ? "FAILED\n" : "done\n");
    return failed;
}
