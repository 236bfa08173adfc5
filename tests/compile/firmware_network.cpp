// The tiny firmware network fits 2K + 2K, and what it computes equals
// plain loops written here (conv + bias + relu, depthwise in place, average).
#define STATIC_NET_DTCM 2048
#define STATIC_NET_SRAM 2048
#include "compile/firmware_network.hpp"

#include <cmath>
#include <cstdio>

static_assert(tiny::plan.fits && tiny::plan.valid);
static_assert(tiny::network.size() == 3);

int main() {
    using namespace tiny;
    float x[c][h][w];
    for (int i = 0; i < c; ++i)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) x[i][y][z] = std::sin(0.37f * float((i * h + y) * w + z));
    std::memcpy(memory.f32({0, 0}), x, sizeof x);
    network.run(memory);

    float a[oc][h][w], d[oc][h][w];
    for (int o = 0; o < oc; ++o)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) {
                float s = bias[o];
                for (int i = 0; i < c; ++i)
                    for (int ky = 0; ky < 3; ++ky)
                        for (int kx = 0; kx < 3; ++kx) {
                            const int iy = y + ky - 1, ix = z + kx - 1;
                            if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                                s += filter[((o * c + i) * 3 + ky) * 3 + kx] * x[i][iy][ix];
                        }
                a[o][y][z] = s > 0.f ? s : 0.f;
            }
    for (int o = 0; o < oc; ++o)
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) {
                float s = dw_bias[o];
                for (int ky = 0; ky < 3; ++ky)
                    for (int kx = 0; kx < 3; ++kx) {
                        const int iy = y + ky - 1, ix = z + kx - 1;
                        if (iy >= 0 && iy < h && ix >= 0 && ix < w)
                            s += dw[(o * 3 + ky) * 3 + kx] * a[o][iy][ix];
                    }
                d[o][y][z] = s;
            }
    const float* got = memory.f32({2, 0});
    int bad = 0;
    for (int o = 0; o < oc; ++o) {
        float s = 0.f;
        for (int y = 0; y < h; ++y)
            for (int z = 0; z < w; ++z) s += d[o][y][z];
        const float want = s / float(h * w);
        if (std::fabs(got[o] - want) > 1e-5f * std::fmax(1.f, std::fabs(want))) {
            std::printf("channel %d: static network %g, plain loops %g\n", o, got[o], want);
            ++bad;
        }
    }
    if (bad == 0) std::printf("static network: %d channels equal the plain loops\n", oc);
    return bad == 0 ? 0 : 1;
}
