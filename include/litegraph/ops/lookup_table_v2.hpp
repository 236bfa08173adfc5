// lookup_table_v2: Out[..., :] = W[Ids[...], :] for W [V, D] and Ids of any
// shape (int32 or int64); Out is Ids.shape + [D].  lookup_table (v1) takes Ids
// with a trailing dim of 1, which it replaces by D.  An id equal to
// `padding_idx` (unless it is -1, "no padding") gives a row of zeros; any other
// id outside [0, V) is an error naming it, never an out-of-bounds read.
#pragma once

#include <cstring>
#include <string_view>

#include "litegraph/ops/op.hpp"

namespace litegraph::ops {

struct lookup_table_v2 {
    static constexpr std::string_view paddle_types[] = {"lookup_table_v2", "lookup_table"};
    static constexpr pir_name pir_names[] = {{"1.embedding", "lookup_table_v2"}};
    struct params {
        std::int64_t padding_idx = -1;
        bool v1 = false;
    };

    static params parse(const attr_map& a, std::string_view type) {
        return {a.get<std::int64_t>("padding_idx", -1), type == "lookup_table"};
    }

    static void infer(const params& p, op_io& io) {
        const auto& w = io.input("W");
        const auto& ids = io.input("Ids");
        io.check(w.shape.size() == 2,
                 [&] { return "W must be a matrix [V, D], has shape " + to_string(w.shape); });
        io.check(ids.type == dtype::i64 || ids.type == dtype::i32, [&] {
            return "Ids must be int64 or int32, got " + std::string(name_of(ids.type));
        });
        auto& out = io.output("Out");
        out.type = w.type;
        out.shape = ids.shape;
        if (p.v1) {
            io.check(!ids.shape.empty() && ids.shape.back() == 1, [&] {
                return "lookup_table needs Ids with a trailing dim of 1, got " +
                       to_string(ids.shape);
            });
            out.shape.back() = w.shape[1];
        } else {
            out.shape.push_back(w.shape[1]);
        }
    }

    static void run(const params& p, op_io& io) {
        const auto& ids = io.input("Ids");
        if (ids.type == dtype::i64)
            gather(p, io, ids.as<std::int64_t>());
        else
            gather(p, io, ids.as<std::int32_t>());
    }

private:
    template <class I>
    static void gather(const params& p, const op_io& io, const I* ids) {
        const auto& w = io.input("W");
        const auto& out = io.output("Out");
        const auto rows = w.shape[0];
        const auto row_bytes = static_cast<std::size_t>(w.shape[1]) * size_of(w.type);
        const auto n = io.input("Ids").numel();
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t id = ids[i];
            std::byte* dst = out.data + static_cast<std::size_t>(i) * row_bytes;
            if (p.padding_idx != -1 && id == p.padding_idx) {
                std::memset(dst, 0, row_bytes);
                continue;
            }
            if (id < 0 || id >= rows)
                io.fail("Ids[" + std::to_string(i) + "] = " + std::to_string(id) +
                        " is out of range for W ('" + std::string(w.name) + "') with " +
                        std::to_string(rows) + " rows");
            std::memcpy(dst, w.data + static_cast<std::size_t>(id) * row_bytes, row_bytes);
        }
    }
};

}  // namespace litegraph::ops
