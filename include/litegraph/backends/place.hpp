// Places: where a kernel runs and on what data, as Paddle Lite's
// (target, precision, layout).  A user lists the places a program may use, in
// order of preference: `litegraph run MODEL --places opencl,host`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "litegraph/core/dtype.hpp"
#include "litegraph/core/error.hpp"

namespace litegraph::backends {

/// The device a kernel runs on.
///  - host: the portable C++ kernels (reference loops and the xsimd kernels).
///  - opencl: the OpenCL subgraph backend (backends/opencl.hpp), any OpenCL device.
///  - cortex_m_dsp: ARMv7E-M SIMD kernels (int8; registered by the firmware build).
enum class target { host, opencl, cortex_m_dsp };
/// The element type a kernel computes in; `any` accepts every one.
enum class precision { any, f32, i8 };
/// The tensor layout a kernel expects; `any` accepts every one.
enum class data_layout { any, nchw };

struct place {
    target where = target::host;
    precision prec = precision::any;
    data_layout layout = data_layout::any;

    friend bool operator==(const place&, const place&) = default;
};

inline constexpr std::string_view name_of(target t) {
    switch (t) {
        case target::host:
            return "host";
        case target::opencl:
            return "opencl";
        case target::cortex_m_dsp:
            return "cortex_m_dsp";
    }
    return "?";
}
inline constexpr std::string_view name_of(precision p) {
    switch (p) {
        case precision::any:
            return "any";
        case precision::f32:
            return "f32";
        case precision::i8:
            return "i8";
    }
    return "?";
}
inline constexpr std::string_view name_of(data_layout l) {
    return l == data_layout::nchw ? "nchw" : "any";
}

/// "host", "opencl/f32", "cortex_m_dsp/i8/nchw": the target, then the
/// precision and layout when they are not `any`.
inline std::string to_string(const place& p) {
    std::string s(name_of(p.where));
    if (p.prec != precision::any || p.layout != data_layout::any)
        s += "/" + std::string(name_of(p.prec));
    if (p.layout != data_layout::any) s += "/" + std::string(name_of(p.layout));
    return s;
}

/// The precision of data of type `t` (f32 for float32, i8 for int8/uint8,
/// any for the rest: shapes, ids and masks run on every place).
inline precision precision_of(dtype t) {
    if (t == dtype::f32) return precision::f32;
    if (t == dtype::i8 || t == dtype::u8) return precision::i8;
    return precision::any;
}

/// Whether a kernel for `kernel_prec` may compute data of precision `data`.
inline bool accepts(precision kernel_prec, precision data) {
    return kernel_prec == precision::any || data == precision::any || kernel_prec == data;
}

/// Parses one place: TARGET[/PRECISION[/LAYOUT]], e.g. "host", "opencl/f32".
inline place parse_place(std::string_view s) {
    auto next = [&]() {
        auto slash = s.find('/');
        auto tok = s.substr(0, slash);
        s = slash == std::string_view::npos ? std::string_view{} : s.substr(slash + 1);
        return tok;
    };
    place p;
    const std::string whole(s);
    auto t = next();
    if (t == "host")
        p.where = target::host;
    else if (t == "opencl")
        p.where = target::opencl;
    else if (t == "cortex_m_dsp")
        p.where = target::cortex_m_dsp;
    else
        throw usage_error("unknown place target '" + std::string(t) + "' in '" + whole +
                          "' (targets: host, opencl, cortex_m_dsp)");
    if (!s.empty()) {
        auto q = next();
        if (q == "f32")
            p.prec = precision::f32;
        else if (q == "i8")
            p.prec = precision::i8;
        else if (q != "any")
            throw usage_error("unknown precision '" + std::string(q) + "' in place '" + whole +
                              "' (precisions: any, f32, i8)");
    }
    if (!s.empty()) {
        auto l = next();
        if (l == "nchw")
            p.layout = data_layout::nchw;
        else if (l != "any")
            throw usage_error("unknown layout '" + std::string(l) + "' in place '" + whole +
                              "' (layouts: any, nchw)");
    }
    if (!s.empty()) throw usage_error("place '" + whole + "' has more than three parts");
    return p;
}

/// Parses "P1,P2,...": the places in order of preference.  Host is always the
/// last resort; listing it says where it ranks.
inline std::vector<place> parse_places(std::string_view list) {
    std::vector<place> v;
    while (true) {
        auto comma = list.find(',');
        auto tok = list.substr(0, comma);
        if (tok.empty()) throw usage_error("--places: empty place in the list");
        v.push_back(parse_place(tok));
        if (comma == std::string_view::npos) break;
        list = list.substr(comma + 1);
    }
    return v;
}

}  // namespace litegraph::backends
