// epilogue::saturate_int8, the one quantisation rule of the int8 kernels,
// against its definition (std::round, half away from zero, then saturate to
// int8; NaN to 0): every float from -300 to 300 in steps of 1/1024 (every
// half and near-half there is one), the floats next to the halves, the
// saturation edges, infinities and NaN.
#include "litegraph/kernels/epilogue.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace litegraph;

namespace {

std::int8_t by_definition(float v) {
    const float r = std::round(v);
    if (std::isnan(r)) return 0;
    return static_cast<std::int8_t>(std::fmax(-128.f, std::fmin(127.f, r)));
}

}  // namespace

TEST_CASE("saturate_int8 rounds half away from zero and saturates, as std::round does") {
    std::vector<float> cases;
    for (int i = -300 * 1024; i <= 300 * 1024; ++i) cases.push_back(float(i) / 1024.f);
    for (int h = -300; h <= 300; ++h) {
        const float half = float(h) + 0.5f;
        cases.push_back(std::nextafter(half, 1e9f));
        cases.push_back(std::nextafter(half, -1e9f));
    }
    const float inf = std::numeric_limits<float>::infinity();
    for (float v : {0.49999997f, -0.49999997f, 127.49999f, 127.5f, -128.5f, -128.49998f, 255.5f,
                    256.f, 256.5f, -256.5f, 1e9f, -1e9f, 3.4e38f, -3.4e38f, inf, -inf,
                    std::numeric_limits<float>::denorm_min(), -0.f})
        cases.push_back(v);
    int wrong = 0;
    for (float v : cases)
        if (kernels::epilogue::saturate_int8(v) != by_definition(v)) {
            if (++wrong <= 5) MESSAGE("saturate_int8(" << v << ") differs");
        }
    CHECK(wrong == 0);
    CHECK(kernels::epilogue::saturate_int8(std::numeric_limits<float>::quiet_NaN()) == 0);
    CHECK(kernels::epilogue::saturate_int8(-2.5f) == -3);
    CHECK(kernels::epilogue::saturate_int8(2.5f) == 3);
}
