// pad2d (Paddle 1.x/2.x): pads the H and W dims of a 4-D X (float32 or
// float64) by `paddings` = [top, bottom, left, right] (or the Paddings input,
// int32 of 4 values, known when the program is planned); `mode` constant
// (with `pad_value`), reflect or edge; `data_format` NCHW or NHWC.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "litegraph/ops/detail/pad.hpp"
#include "litegraph/ops/detail/shape_args.hpp"
#include "litegraph/ops/detail/window.hpp"

namespace litegraph::ops {

struct pad2d {
    static constexpr std::string_view paddle_types[] = {"pad2d"};
    struct params {
        std::vector<std::int64_t> paddings;
        detail::pad_mode mode = detail::pad_mode::constant;
        float value = 0.f;
        bool nhwc = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        params p;
        p.paddings = a.get<std::vector<std::int64_t>>("paddings", {0, 0, 0, 0});
        const auto mode = a.get<std::string>("mode", "constant");
        if (mode == "constant")
            p.mode = detail::pad_mode::constant;
        else if (mode == "reflect")
            p.mode = detail::pad_mode::reflect;
        else if (mode == "edge")
            p.mode = detail::pad_mode::edge;
        else
            throw unsupported_error("op " + std::string(type) + ": mode '" + mode +
                                    "' is not supported (constant, reflect, edge)");
        p.value = a.get<float>("pad_value", 0.f);
        p.nhwc = detail::channels_last(a, type);
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
        return detail::pad_resolve(io, pads, 2, p.nhwc, p.mode);
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
