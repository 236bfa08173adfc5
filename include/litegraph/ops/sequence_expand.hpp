// sequence_expand: repeats each sequence (or row) of X as many times as Y has
// entries in the matching sequence of Y's LoD level `ref_level` (-1: Y's
// last level), as Paddle's CPU kernel.  With Y's level r = {r0, r1, ...},
// sequence i of X (X's level-1 LoD; a plain X: row i) is written
// r[i+1] - r[i] times in a row.  X has at most one LoD level and as many
// sequences (rows) as level r has entries.  Out is [rows, ...] of X's dtype;
// it carries the LoD of the repeated sequences when X has one (each copy one
// sequence), none otherwise.  Any dtype.
#pragma once

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct sequence_expand {
    static constexpr std::string_view paddle_types[] = {"sequence_expand"};
    static constexpr pir_name pir_names[] = {{"1.sequence_expand", "sequence_expand"}};
    static constexpr bool sets_lod = true;
    struct params {
        int ref_level = -1;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<int>("ref_level", -1)};
    }

    /// Y's reference level, checked.
    static const std::vector<std::int64_t>& ref_offsets(const params& p, const op_io& io) {
        const auto& y = io.input("Y");
        io.check(!y.lod.empty(), [&] {
            return "Y ('" + std::string(y.name) +
                   "') has no LoD: sequence_expand repeats X by Y's sequences (feed them with "
                   "--lod NAME=0,L0,L0+L1,... or tensor::set_lod)";
        });
        io.check(!y.shape.empty(), "Y has a LoD but is a scalar");
        if (auto problem = lod_problem(y.lod, y.shape[0]); !problem.empty())
            io.fail("input Y ('" + std::string(y.name) + "'): " + problem);
        const auto levels = static_cast<int>(y.lod.size());
        io.check(p.ref_level >= -1 && p.ref_level < levels, [&] {
            return "ref_level " + std::to_string(p.ref_level) + " is out of range for Y's " +
                   std::to_string(levels) + " LoD level(s)";
        });
        return y.lod[static_cast<std::size_t>(p.ref_level == -1 ? levels - 1 : p.ref_level)];
    }

    /// X's sequence offsets: its LoD, or one row per sequence.
    static std::vector<std::int64_t> x_offsets(const op_io& io) {
        const auto& x = io.input("X");
        if (!x.lod.empty()) return detail::sequence_offsets(io, "X");
        std::vector<std::int64_t> off(static_cast<std::size_t>(x.shape[0]) + 1);
        for (std::size_t i = 0; i < off.size(); ++i) off[i] = static_cast<std::int64_t>(i);
        return off;
    }

    static void infer(const params& p, op_io& io) {
        const auto& x = io.input("X");
        io.check(!x.shape.empty() && x.shape[0] >= 0,
                 [&] { return "X must have a known first dim, has shape " + to_string(x.shape); });
        io.check(x.lod.size() <= 1, [&] {
            return "X has a LoD of " + std::to_string(x.lod.size()) +
                   " levels; sequence_expand takes at most 1";
        });
        const auto& ref = ref_offsets(p, io);
        const auto xo = x_offsets(io);
        io.check(xo.size() == ref.size(), [&] {
            return "X has " + std::to_string(xo.size() - 1) +
                   (x.lod.empty() ? " rows" : " sequences") + " but Y's reference level has " +
                   std::to_string(ref.size() - 1) + " entries";
        });
        std::int64_t rows = 0;
        lod_t lod;
        if (!x.lod.empty()) lod.push_back({0});
        for (std::size_t i = 1; i < ref.size(); ++i) {
            const std::int64_t repeat = ref[i] - ref[i - 1], len = xo[i] - xo[i - 1];
            rows += repeat * len;
            if (!lod.empty())
                for (std::int64_t j = 0; j < repeat; ++j) lod[0].push_back(lod[0].back() + len);
        }
        auto& out = io.output("Out");
        out.type = x.type;
        out.shape = x.shape;
        out.shape[0] = rows;
        out.lod = std::move(lod);
    }

    static void run(const params& p, op_io& io) {
        const auto& x = io.input("X");
        const auto& ref = ref_offsets(p, io);
        const auto xo = x_offsets(io);
        std::int64_t row_elems = 1;
        for (std::size_t i = 1; i < x.shape.size(); ++i) row_elems *= x.shape[i];
        const auto row_bytes = static_cast<std::size_t>(row_elems) * size_of(x.type);
        std::byte* out = io.output("Out").data;
        std::int64_t at = 0;
        for (std::size_t i = 1; i < ref.size(); ++i) {
            const std::int64_t len = xo[i] - xo[i - 1];
            const auto bytes = static_cast<std::size_t>(len) * row_bytes;
            for (std::int64_t j = ref[i - 1]; j < ref[i]; ++j) {
                if (bytes)
                    std::memcpy(out + static_cast<std::size_t>(at) * row_bytes,
                                x.data + static_cast<std::size_t>(xo[i - 1]) * row_bytes, bytes);
                at += len;
            }
        }
    }
};

}  // namespace litegraph::ops
