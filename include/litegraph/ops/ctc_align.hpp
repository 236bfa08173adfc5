// ctc_align: CTC decoding of token ids, as Paddle's CPU kernel: within each
// sequence, tokens equal to `blank` are dropped and, with merge_repeated, so
// is a token equal to the one before it (the one before the first is -1,
// blanks included in "the one before").  Two forms:
//  - Input [N, 1] (or [N]) with a level-1 LoD: Output [M, 1] with the kept
//    tokens and the LoD of the kept sequences.  The row count depends on the
//    values (shapes_at_run: N rows reserved).  When nothing is kept at all,
//    Output is one row [-1] as Paddle's; Paddle leaves its LoD all zeros,
//    which does not fit that row, so here it has none.
//  - padded Input [B, T] with InputLength [B] or [B, 1]: Output [B, T], each
//    row's kept tokens first, then padding_value; OutputLength [B, 1] the
//    kept counts.  Lengths outside [0, T] are an error.
// int32 and int64 tokens.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "litegraph/ops/detail/sequence.hpp"

namespace litegraph::ops {

struct ctc_align {
    static constexpr std::string_view paddle_types[] = {"ctc_align"};
    static constexpr pir_name pir_names[] = {{"1.ctc_align", "ctc_align"}};
    static constexpr bool sets_lod = true;
    static constexpr bool shapes_at_run = true;
    struct params {
        std::int64_t blank = 0;
        bool merge_repeated = true;
        std::int64_t padding_value = 0;
    };

    static params parse(const attr_map& a, std::string_view) {
        return {a.get<std::int64_t>("blank", 0), a.get<bool>("merge_repeated", true),
                a.get<std::int64_t>("padding_value", 0)};
    }

    static bool padded(const op_io& io) { return io.input_count("InputLength") > 0; }

    static std::int64_t length_at(const tensor_ref& l, std::int64_t i) {
        return l.type == dtype::i32 ? l.as<std::int32_t>()[i] : l.as<std::int64_t>()[i];
    }

    static void infer(const params&, op_io& io) {
        const auto& x = io.input("Input");
        io.check(x.type == dtype::i32 || x.type == dtype::i64, [&] {
            return "Input must be int32 or int64 token ids, got " + std::string(name_of(x.type));
        });
        auto& out = io.output("Output");
        out.type = x.type;
        if (padded(io)) {
            const auto& l = io.input("InputLength");
            io.check(x.shape.size() == 2, [&] {
                return "Input must be [B, T] with InputLength, has shape " + to_string(x.shape);
            });
            io.check((l.type == dtype::i32 || l.type == dtype::i64) && l.numel() == x.shape[0],
                     [&] {
                         return "InputLength must hold one int32 or int64 length per row (" +
                                std::to_string(x.shape[0]) + "), has shape " + to_string(l.shape) +
                                " of " + std::string(name_of(l.type));
                     });
            if (l.has_data()) check_lengths(io);
            out.shape = x.shape;
            if (io.output_count("OutputLength") > 0) {
                auto& ol = io.output("OutputLength");
                ol.type = x.type;
                ol.shape = {x.shape[0], 1};
            }
            return;
        }
        io.check(x.shape.size() == 1 || (x.shape.size() == 2 && x.shape[1] == 1), [&] {
            return "Input must be [N, 1] token ids with a LoD (or give InputLength), has shape " +
                   to_string(x.shape);
        });
        io.check(x.lod.size() == 1, [&] {
            return "Input must have a LoD of one level, has " + std::to_string(x.lod.size()) +
                   (x.lod.empty() ? " (feed it with --lod NAME=0,L0,L0+L1,..., or give "
                                    "InputLength)"
                                  : "");
        });
        const auto& off = detail::sequence_offsets(io, "Input");
        out.shape = {std::max<std::int64_t>(x.shape[0], 1), 1};
        // The bound keeps every token: Input's LoD fits it (the run sets the actual one).
        if (x.shape[0] > 0) out.lod = {off};
    }

    static void run(const params& p, op_io& io) {
        if (io.input("Input").type == dtype::i64)
            compute<std::int64_t>(p, io);
        else
            compute<std::int32_t>(p, io);
    }

private:
    static void check_lengths(const op_io& io) {
        const auto& x = io.input("Input");
        const auto& l = io.input("InputLength");
        for (std::int64_t i = 0; i < l.numel(); ++i) {
            const auto n = length_at(l, i);
            io.check(n >= 0 && n <= x.shape[1], [&] {
                return "InputLength[" + std::to_string(i) + "] = " + std::to_string(n) +
                       " is outside [0, " + std::to_string(x.shape[1]) + "]";
            });
        }
    }

    template <class T>
    static void compute(const params& p, op_io& io) {
        const auto& x = io.input("Input");
        auto& out = io.output("Output");
        const T* in = x.as<T>();
        T* o = out.as<T>();
        const T blank = static_cast<T>(p.blank);
        if (padded(io)) {
            check_lengths(io);
            const auto& l = io.input("InputLength");
            const std::int64_t t = x.shape[1];
            T* ol = io.output_count("OutputLength") ? io.output("OutputLength").as<T>() : nullptr;
            for (std::int64_t b = 0; b < x.shape[0]; ++b) {
                T prev = T(-1);
                std::int64_t k = 0;
                for (std::int64_t i = 0; i < length_at(l, b); ++i) {
                    const T v = in[b * t + i];
                    if (v != blank && !(p.merge_repeated && v == prev)) o[b * t + k++] = v;
                    prev = v;
                }
                if (ol) ol[b] = static_cast<T>(k);
                for (; k < t; ++k) o[b * t + k] = static_cast<T>(p.padding_value);
            }
            return;
        }
        const auto& off = detail::sequence_offsets(io, "Input");
        std::vector<std::int64_t> lod{0};
        std::int64_t k = 0;
        for (std::size_t s = 0; s + 1 < off.size(); ++s) {
            T prev = T(-1);
            for (std::int64_t i = off[s]; i < off[s + 1]; ++i) {
                const T v = in[i];
                if (v != blank && !(p.merge_repeated && v == prev)) o[k++] = v;
                prev = v;
            }
            lod.push_back(k);
        }
        if (k == 0) {
            o[0] = T(-1);
            out.shape = {1, 1};
            out.lod.clear();
            return;
        }
        out.shape = {k, 1};
        out.lod = {std::move(lod)};
    }
};

}  // namespace litegraph::ops
