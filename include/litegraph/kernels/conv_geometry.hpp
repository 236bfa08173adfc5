// The conv kernels' common ground: the resolved geometry every path takes
// (conv_geometry) and the epilogue that stores finished values into a dense
// or channel-strided NCHW output (conv_store_epilogue).  The paths:
// kernels/conv_depthwise.hpp, kernels/conv_pointwise.hpp (through
// kernels/conv_direct.hpp) and the GEMM / im2col conv of kernels/conv.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include "litegraph/core/error.hpp"

namespace litegraph::kernels {

/// Resolved conv geometry (the field names of ops::conv2d::geometry).
struct conv_geometry {
    std::int64_t n, c, h, w;      // input
    std::int64_t oc, kh, kw;      // filter
    std::int64_t oh, ow;          // output
    std::int64_t sh, sw, dh, dw;  // strides, dilations
    std::int64_t pt, pb, pl, pr;  // paddings: top, bottom, left, right
    std::int64_t groups;

    /// From any struct with the same field names.
    template <class G>
    static constexpr conv_geometry from(const G& g) {
        return {g.n,  g.c,  g.h,  g.w,  g.oc, g.kh, g.kw, g.oh, g.ow,
                g.sh, g.sw, g.dh, g.dw, g.pt, g.pb, g.pl, g.pr, g.groups};
    }
    static constexpr std::int64_t out_size(std::int64_t in, std::int64_t k, std::int64_t d,
                                           std::int64_t p0, std::int64_t p1, std::int64_t s) {
        return (in + p0 + p1 - (d * (k - 1) + 1)) / s + 1;
    }
    /// Throws shape_error unless the geometry is consistent.
    void validate() const {
        auto fail = [](const std::string& what) {
            LITEGRAPH_THROW(shape_error("kernels::conv2d: " + what));
        };
        if (n < 0 || c < 1 || h < 1 || w < 1 || oc < 1 || kh < 1 || kw < 1 || groups < 1)
            fail("empty or negative dimension");
        if (sh < 1 || sw < 1 || dh < 1 || dw < 1) fail("strides and dilations must be >= 1");
        if (pt < 0 || pb < 0 || pl < 0 || pr < 0) fail("negative padding");
        if (c % groups != 0 || oc % groups != 0)
            fail("channels " + std::to_string(c) + " -> " + std::to_string(oc) +
                 " are not divisible by groups " + std::to_string(groups));
        if (oh != out_size(h, kh, dh, pt, pb, sh) || ow != out_size(w, kw, dw, pl, pr, sw) ||
            oh < 1 || ow < 1)
            fail("output size " + std::to_string(oh) + "x" + std::to_string(ow) +
                 " does not follow from the input, window, strides and paddings");
    }
    bool is_depthwise() const { return groups == c && oc == c; }
    bool is_pointwise() const {
        return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0;
    }
    double flops() const { return 2.0 * double(n) * oc * oh * ow * (c / groups) * kh * kw; }
};

/// Writes y[n * image_stride + oc * channel_stride + offset].
struct conv_store_epilogue {
    float* y;
    std::int64_t image_stride, channel_stride;
    conv_store_epilogue(float* out, const conv_geometry& g)
        : y(out), image_stride(g.oc * g.oh * g.ow), channel_stride(g.oh * g.ow) {}
    conv_store_epilogue(float* out, std::int64_t image, std::int64_t channel)
        : y(out), image_stride(image), channel_stride(channel) {}
    void operator()(std::int64_t n, std::int64_t oc, std::int64_t offset, const float* v,
                    std::int64_t count) const {
        std::memcpy(y + n * image_stride + oc * channel_stride + offset, v,
                    static_cast<std::size_t>(count) * sizeof(float));
    }
};

}  // namespace litegraph::kernels
