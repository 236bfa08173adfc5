// dropout at inference: "upscale_in_train" is the identity, "downgrade_in_infer"
// (Paddle's default) multiplies by (1 - dropout_prob).  Only Out is produced;
// the Mask output is a training artefact and is left unproduced.
#pragma once

#include <string>
#include <string_view>

#include "litegraph/ops/detail/shape_args.hpp"

namespace litegraph::ops {

struct dropout {
    static constexpr std::string_view paddle_types[] = {"dropout"};
    static constexpr pir_name pir_names[] = {{"1.dropout", "dropout"}};
    struct params {
        float dropout_prob = 0.5f;
        bool upscale_in_train = false;
    };

    static params parse(const attr_map& a, std::string_view) {
        auto impl = a.get<std::string>("dropout_implementation", "downgrade_in_infer");
        if (impl != "upscale_in_train" && impl != "downgrade_in_infer")
            throw unsupported_error("dropout_implementation '" + impl + "' is not supported");
        return {a.get<float>("dropout_prob", 0.5f), impl == "upscale_in_train"};
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(p.upscale_in_train || x.type == dtype::f32 || x.type == dtype::f64, [&] {
            return "downgrade_in_infer needs float32 or float64 X, got " +
                   std::string(name_of(x.type));
        });
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& out = io.output("Out");
        if (p.upscale_in_train) return detail::copy_all(x, out);
        auto scale_by = [&]<class T>(T) {
            const T k = static_cast<T>(1.0f - p.dropout_prob);  // as Paddle: in float
            auto in = x.span<T>();
            auto o = out.span<T>();
            for (std::size_t i = 0; i < in.size(); ++i) o[i] = in[i] * k;
        };
        if (x.type == dtype::f64)
            scale_by(double{});
        else
            scale_by(float{});
    }
};

}  // namespace litegraph::ops
