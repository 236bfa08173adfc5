// pad3d: pads the D, H and W dims of a 5-D X (float32 or float64) by
// `paddings` = [left, right, top, bottom, front, back] (or the Paddings input,
// int32/int64 of 6 values, known when the program is planned); `mode`
// constant (with `value`), reflect, replicate or circular; `data_format`
// NCDHW or NDHWC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/pad.hpp"
#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct pad3d {
    static constexpr std::string_view paddle_types[] = {"pad3d"};
    static constexpr pir_name pir_names[] = {{"1.pad3d", "pad3d"}};
    struct params {
        std::vector<std::int64_t> paddings;
        detail::pad_mode mode = detail::pad_mode::constant;
        float value = 0.f;
        bool ndhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0, 0, 0, 0, 0});
        const auto mode = a.get<std::string>("mode", "constant");
        if (mode == "constant")
            p.mode = detail::pad_mode::constant;
        else if (mode == "reflect")
            p.mode = detail::pad_mode::reflect;
        else if (mode == "replicate")
            p.mode = detail::pad_mode::edge;
        else if (mode == "circular")
            p.mode = detail::pad_mode::circular;
        else
            throw unsupported_error("op " + std::string(type) + ": mode '" + mode +
                                    "' is not supported (constant, reflect, replicate, circular)");
        p.value = a.get<float>("value", 0.f);
        const auto f = a.get<std::string>("data_format", "NCDHW");
        if (f != "NCDHW" && f != "NDHWC")
            throw unsupported_error("op " + std::string(type) + ": data_format '" + f +
                                    "' is not supported (NCDHW, NDHWC)");
        p.ndhwc = f == "NDHWC";
        return p;
    }

    static detail::pad_geometry resolve(const params& p, const op_io& io) {
        const auto& x = io.input("X");
        io.check(x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "X must be float32 or float64, got " + std::string(name_of(x.type));
        });
        auto pads = io.input_count("Paddings") > 0
                        ? detail::read_ints(io, io.input("Paddings"), "Paddings")
                        : p.paddings;
        io.check(pads.size() == 6, [&] {
            return "paddings must hold 6 values, holds " + std::to_string(pads.size());
        });
        // [left, right, top, bottom, front, back] to X's dim order D, H, W.
        const std::vector<std::int64_t> ordered{pads[4], pads[5], pads[2],
                                                pads[3], pads[0], pads[1]};
        return detail::pad_resolve(io, ordered, 3, p.ndhwc, p.mode);
    }

    static void infer(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        auto& out = io.output("Out");
        out.type = io.input("X").type;
        out.shape = detail::pad_out_shape(g);
    }

    static void run(const params& p, op_io& io) {
        const auto g = resolve(p, io);
        const auto& x = io.input("X");
        io.check(io.output("Out").numel() == numel(detail::pad_out_shape(g)),
                 "Out does not fit the padding");
        if (x.type == dtype::f32)
            detail::pad_run<float>(g, x.as<float>(), io.output("Out").as<float>(), p.mode, p.value);
        else
            detail::pad_run<double>(g, x.as<double>(), io.output("Out").as<double>(), p.mode,
                                    static_cast<double>(p.value));
    }
};

}  // namespace litegraph::ops
