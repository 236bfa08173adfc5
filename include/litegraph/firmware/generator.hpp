// The code generator (docs/firmware.md): a prepared runtime program -> one
// self-contained header in the vocabulary of firmware/network.hpp: the
// weights as constexpr arrays, the layers as one constexpr network of
// layer<Op> (each node's op looked up in firmware::op_types, its form from
// Op::form_of printed generically from fields()), a patched stage patch by
// patch (runtime/patches.hpp), the buffers to plan, the compile-time plan
// with its static_assert, and one array per memory segment for the
// activations.  firmware/codegen.hpp is the entry point from a model.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "litegraph/firmware/literals.hpp"
#include "litegraph/runtime/patches.hpp"
#include "litegraph/runtime/program.hpp"
#include "litegraph/runtime/sample_input.hpp"

namespace litegraph::firmware {

/// What the header is written with.
struct header_options {
    /// The C++ namespace of the network.
    std::string ns = "net";
    /// The memory segments, fastest first, and their C++ names.
    std::vector<std::string> segment_names;
    std::vector<planner::segment> segments;
    /// The model's file name, for the header's first line.
    std::string source = "model";
    /// Also write sample inputs: `inputs` where given, else the
    /// deterministic input (core deterministic_input) of each input.
    bool sample_input = false;
    std::map<std::string, tensor> inputs;
};

/// The header and what it holds.
struct header_text {
    std::string text;
    int layers = 0;        // layers of the network
    int patch_layers = 0;  // more inside the patched stages
    std::size_t weight_bytes = 0;
};

namespace codegen_detail {

struct generator {
    generator(runtime::program& p, std::string n, std::vector<std::string> names,
              std::vector<planner::segment> s)
        : prog(p), ns(std::move(n)), seg_names(std::move(names)), segs(std::move(s)) {}

    runtime::program& prog;
    std::string ns;
    std::vector<std::string> seg_names;
    std::vector<planner::segment> segs;

    std::ostringstream weights;  // the weight arrays
    std::ostringstream lists;    // the list operands' arrays (firmware::operand)
    int list_count = 0;
    std::ostringstream layers;  // the layer initializers
    std::map<const std::byte*, std::string> weight_names;
    std::size_t weight_bytes = 0;
    int layer_count = 0;
    /// Planned scratch buffers: the layers sharing one (a layer's own, or
    /// every layer of a patched stage: the largest of theirs) and its step;
    /// buffer prog.buffers().size() + k for the k-th.
    std::vector<std::pair<std::vector<std::string>, int>> scratch_layers;
    int step = 0;  // of the layer being emitted, in the execution order

    /// While a patched stage's layers are emitted: where each activation of
    /// the patch's op_io is ("{buffer, offset}") and the distinct byte offset
    /// form_of sees it at; the stage's shared kernel scratch buffer.
    struct sub_places {
        std::map<const tensor_ref*, std::pair<std::string, std::size_t>> at;
        std::size_t bytes = 0;
        int scratch = -1;  // index into scratch_layers
    };
    /// While a patch's layers are written: they go here, and the layer
    /// holding them is `patch_path` (an expression of the header).
    std::vector<std::string>* patch_sink = nullptr;
    std::string patch_path;
    int patch_layer_count = 0;
    const sub_places* sub = nullptr;
    /// Packed constants already written: (source, slot) -> contents and name.
    std::map<std::pair<const void*, std::size_t>,
             std::vector<std::pair<std::vector<std::uint32_t>, std::string>>>
        packed_names;

    const graph::graph& g() const { return prog.graph(); }
    int var_of(const tensor_ref* r) const { return static_cast<int>(r - &prog.var(0)); }

    std::string at(const tensor_ref* r, const std::string& where) const {
        if (sub)
            if (auto it = sub->at.find(r); it != sub->at.end()) return it->second.first;
        const int v = var_of(r);
        auto [b, off] = prog.var_buffers()[static_cast<std::size_t>(v)];
        if (b < 0)
            throw unsupported_error(where + ": tensor '" + g().vars[v].name +
                                    "' is not a planned activation");
        return "{" + std::to_string(b) + ", " + std::to_string(off) + "}";
    }
    bool is_constant(const tensor_ref* r) const {
        if (sub) return r->data && !sub->at.count(r);
        return r->data && prog.var_buffers()[static_cast<std::size_t>(var_of(r))].first < 0;
    }
    /// The name of a constant's weight array (written once per tensor).
    std::string weight(const tensor_ref* r, const std::string& where) {
        if (!is_constant(r))
            throw unsupported_error(where + ": '" + std::string(r->name) +
                                    "' must be a constant (weights) in a firmware network");
        if (r->type != dtype::f32 && r->type != dtype::i8)
            throw unsupported_error(where + ": constant '" + std::string(r->name) + "' is " +
                                    std::string(name_of(r->type)) +
                                    ", only float32 and int8 are supported");
        if (auto it = weight_names.find(r->data); it != weight_names.end()) return it->second;
        std::string name = next_weight_name();
        weight_names[r->data] = "weights::" + name;  // a patched stage's layers share it
        const auto n = static_cast<std::size_t>(r->numel());
        const bool i8 = r->type == dtype::i8;
        weights << "// " << r->name << " " << to_string(r->shape) << (i8 ? " int8" : "") << "\n";
        if (i8)
            write_array(name, r->as<std::int8_t>(), n, std::string(r->name));
        else
            write_array(name, r->as<float>(), n, std::string(r->name));
        return "weights::" + name;
    }
    /// A constant as the layer's form reads it packed (done here, once, so the
    /// firmware does not): `count` elements of T (float: Op::pack_input from
    /// a float32 tensor; 32-bit words: Op::pack_words from an int8 one), an
    /// array of its own.
    template <class Op, class T>
    std::string packed_constant(const tensor_ref* r, const typename Op::form& form,
                                std::size_t slot, std::size_t count, const std::string& where) {
        constexpr bool words = std::is_same_v<T, std::uint32_t>;
        using source = std::conditional_t<words, std::int8_t, float>;
        if (!is_constant(r) || r->type != (words ? dtype::i8 : dtype::f32))
            throw unsupported_error(where + ": '" + std::string(r->name) + "' must be " +
                                    (words ? "an int8" : "a float32") + " constant to be packed");
        std::vector<T> packed(count);
        const source* src = r->as<source>();
        if constexpr (words) {
            if constexpr (requires { Op::pack_words(form, slot, src, packed.data()); })
                Op::pack_words(form, slot, src, packed.data());
        } else {
            if constexpr (requires { Op::pack_input(form, slot, src, packed.data()); })
                Op::pack_input(form, slot, src, packed.data());
        }
        // The layers of a patched stage pack one constant once per patch: the
        // same contents are written once.
        std::vector<std::uint32_t> key(count);
        std::memcpy(key.data(), packed.data(), count * sizeof(T));
        auto& seen = packed_names[{r->data, slot}];
        for (auto& [contents, n] : seen)
            if (contents == key) return n;
        std::string name = next_weight_name();
        seen.push_back({std::move(key), "weights::" + name});
        weights << "// " << r->name << " " << to_string(r->shape) << " packed for the layer ("
                << count << (words ? " words" : " floats") << ")\n";
        write_array(name, packed.data(), count, std::string(r->name));
        return "weights::" + name;
    }
    int weight_count = 0;
    std::string next_weight_name() { return "w" + std::to_string(weight_count++); }
    template <class T>
    void write_array(const std::string& name, const T* v, std::size_t n, const std::string& what) {
        constexpr bool i8 = std::is_same_v<T, std::int8_t>;
        constexpr bool u32 = std::is_same_v<T, std::uint32_t>;
        weight_bytes += n * sizeof(T);
        weights << "alignas(16) " << upper(ns) << "_WEIGHTS_ATTR constexpr "
                << (i8 ? "std::int8_t " : (u32 ? "std::uint32_t " : "float ")) << name << "[" << n
                << "] = {";
        for (std::size_t i = 0; i < n; ++i) {
            if (i % (i8 ? 24 : 8) == 0) weights << "\n";
            if constexpr (i8) {
                weights << static_cast<int>(v[i]) << ",";
            } else if constexpr (u32) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "0x%08xu,", static_cast<unsigned>(v[i]));
                weights << buf;
            } else {
                weights << float_literal(v[i], what) << ",";
            }
        }
        weights << "};\n";
    }

    void layer(const std::string& text) {
        if (patch_sink) {
            patch_sink->push_back(text);
            ++patch_layer_count;
            return;
        }
        layers << (layer_count++ ? ",\n" : "") << "    " << text;
    }

    /// Where each planned buffer starts in `arena` (one byte more than all of
    /// them, never touched: only its addresses are used).
    std::vector<std::size_t> buffer_start;
    std::unique_ptr<std::byte[]> arena;
    std::unique_ptr<std::byte[]> sub_arena;  // a patched stage's, for form_of
    std::size_t sub_arena_bytes = 0;

    /// Points the activations of `io` at distinct addresses laid out as the
    /// plan places them (the runtime's view: an output over its input shares
    /// its address), for form_of; restores them when it goes.
    struct placed {
        std::vector<std::pair<tensor_ref*, std::byte*>> saved;
        placed(generator& gen, const op_io& io) {
            if (!gen.arena) {
                const auto& bufs = gen.prog.buffers();
                gen.buffer_start.assign(bufs.size() + 1, 0);
                for (std::size_t b = 0; b < bufs.size(); ++b)
                    gen.buffer_start[b + 1] = gen.buffer_start[b] + bufs[b].size;
                gen.arena.reset(new std::byte[gen.buffer_start.back() + 1]);
            }
            if (gen.sub) {  // a patch's layer: its activations at their offsets
                if (gen.sub_arena_bytes < gen.sub->bytes) {
                    gen.sub_arena.reset(new std::byte[gen.sub->bytes]);
                    gen.sub_arena_bytes = gen.sub->bytes;
                }
                for (auto& [cr, where] : gen.sub->at) {
                    auto* r = const_cast<tensor_ref*>(cr);
                    saved.push_back({r, r->data});
                    r->data = gen.sub_arena.get() + where.second;
                }
                return;
            }
            for (const auto* slots : {&io.inputs, &io.outputs})
                for (const auto& slot : *slots)
                    for (auto* r : slot.args) {
                        if (!r) continue;
                        auto [b, off] =
                            gen.prog.var_buffers()[static_cast<std::size_t>(gen.var_of(r))];
                        if (b < 0) continue;
                        saved.push_back({r, r->data});
                        r->data =
                            gen.arena.get() + gen.buffer_start[static_cast<std::size_t>(b)] + off;
                    }
        }
        ~placed() {
            for (auto it = saved.rbegin(); it != saved.rend(); ++it) it->first->data = it->second;
        }
        placed(const placed&) = delete;
        placed& operator=(const placed&) = delete;
    };

    /// One node as `layer<Op>{form, {inputs}, output}`: the form from
    /// Op::form_of, each firmware input a planned tensor or a weight array.
    template <class Op>
    void emit(const graph::op_node& node, const op_io& io, const std::string& where) {
        typename Op::form form;
        try {
            const auto params = Op::parse(node.attrs, node.type);
            placed p(*this, io);
            form = Op::form_of(params, io);
            // An op with firmware kernels of its own over packed constants.
            if constexpr (requires { Op::packed_form(form); }) form = Op::packed_form(form);
        } catch (const unsupported_error& e) {
            throw unsupported_error(where + ": " + e.what());
        }
        const tensor_ref* out = &io.output(Op::firmware_output);
        check_unread_outputs<Op>(io, where);
        std::ostringstream o;
        o << "layer<" << op_spelling<Op>::get() << ">{" << literal_printer{where}(form) << ", {";
        bool first = true;
        std::size_t index = 0, list_operands = 0;
        for (std::string_view slot : Op::firmware_inputs) {
            const std::size_t i = index++;
            o << (first ? "" : ", ");
            first = false;
            if (!io.input_count(slot)) {
                o << "{}";
                continue;
            }
            if (firmware_list_input<Op>(i)) {
                list_operands += io.input_count(slot);
                if (list_operands > firmware_io::max_list_operands)
                    throw unsupported_error(where + ": its list inputs hold " +
                                            std::to_string(list_operands) + " tensors, more than " +
                                            std::to_string(firmware_io::max_list_operands) +
                                            " (firmware_io::max_list_operands)");
                o << list_operand<Op>(io, slot, out, where);
                continue;
            }
            const tensor_ref* r = &io.input(slot);
            std::size_t packed = 0, words = 0;
            if constexpr (requires { Op::packed_floats(form, i); })
                packed = Op::packed_floats(form, i);
            if constexpr (requires { Op::packed_words(form, i); })
                words = Op::packed_words(form, i);
            if (packed) {
                o << "{{-1, 0}, " << packed_constant<Op, float>(r, form, i, packed, where) << "}";
                continue;
            }
            if (words) {
                o << "{{-1, 0}, " << packed_constant<Op, std::uint32_t>(r, form, i, words, where)
                  << "}";
                continue;
            }
            if (is_constant(r)) {
                o << "{{-1, 0}, " << weight(r, where) << "}";
                continue;
            }
            if (op_in_place<Op>() == in_place_rule::none &&
                (sub ? at(r, where) == at(out, where)
                     : prog.var_buffers()[var_of(r)] == prog.var_buffers()[var_of(out)]))
                throw unsupported_error(where + ": planned in place of its input " +
                                        std::string(slot) + ", which it cannot run");
            o << "{" << at(r, where) << "}";
        }
        o << "}, " << at(out, where);
        // Scratch (a conv's row buffers, a pool's windows) is one more buffer,
        // live at this step only, so the plan places it beside the activations;
        // its size is the layer's scratch_bytes() on the compiling target.
        if (Op::scratch_bytes(form) > 0) {
            if (sub) {  // the patched stage's one kernel scratch buffer
                o << ", {" << prog.buffers().size() + static_cast<std::size_t>(sub->scratch)
                  << ", 0}";
                scratch_layers[static_cast<std::size_t>(sub->scratch)].first.push_back(
                    "std::get<" + std::to_string(patch_sink->size()) + ">(" + patch_path +
                    ".layers)");
            } else {
                o << ", {" << prog.buffers().size() + scratch_layers.size() << ", 0}";
                scratch_layers.push_back(
                    {{"std::get<" + std::to_string(layer_count) + ">(network.layers)"}, step});
            }
        }
        o << "}";
        layer(o.str());
    }

    /// One operand of a list: a weight array or a planned tensor.
    template <class Op>
    std::string list_item(const tensor_ref* r, const tensor_ref* out, const std::string& slot,
                          const std::string& where) {
        if (is_constant(r)) return "{{-1, 0}, " + weight(r, where) + "}";
        if (op_in_place<Op>() == in_place_rule::none &&
            (sub ? at(r, where) == at(out, where)
                 : prog.var_buffers()[var_of(r)] == prog.var_buffers()[var_of(out)]))
            throw unsupported_error(where + ": planned in place of its input " + slot +
                                    ", which it cannot run");
        return "{" + at(r, where) + "}";
    }

    /// A list input (Op::firmware_lists) as a constexpr array of operands
    /// written beside the weights; the layer's operand points at it.
    template <class Op>
    std::string list_operand(const op_io& io, std::string_view slot, const tensor_ref* out,
                             const std::string& where) {
        const std::size_t count = io.input_count(slot);
        const std::string name = "l" + std::to_string(list_count++);
        lists << "// " << where << ": " << slot << "\n"
              << "inline constexpr litegraph::firmware::operand " << name << "[] = {";
        for (std::size_t k = 0; k < count; ++k)
            lists << (k ? ",\n    " : "\n    ")
                  << list_item<Op>(&io.input(slot, k), out,
                                   std::string(slot) + " #" + std::to_string(k), where);
        lists << "};\n";
        return "{{}, nullptr, lists::" + name + ", " + std::to_string(count) + "}";
    }

    /// A firmware form computes Op::firmware_output only: every other output
    /// must be one nothing reads (no consumer, not fetched).
    template <class Op>
    void check_unread_outputs(const op_io& io, const std::string& where) {
        if (sub) return;  // a patch's layer: its tensors are the stage's own
        for (const auto& slot : io.outputs) {
            if (slot.name == Op::firmware_output) continue;
            for (const tensor_ref* r : slot.args) {
                if (!r) continue;
                const int v = var_of(r);
                if (v < 0 || static_cast<std::size_t>(v) >= g().vars.size()) continue;
                const auto& var = g().vars[static_cast<std::size_t>(v)];
                bool fetched = false;
                for (const auto& f : g().fetches) fetched = fetched || f.var == v;
                if (!var.consumers.empty() || fetched)
                    throw unsupported_error(where + ": its output " + slot.name + " ('" + var.name +
                                            "') is " +
                                            (fetched ? "fetched" : "read by another op") +
                                            ", but its compile-time form computes only " +
                                            std::string(Op::firmware_output));
                unread_outputs.insert(v);
            }
        }
    }
    /// The outputs of firmware layers that nothing reads and no layer writes:
    /// their buffers get no bytes.
    std::set<int> unread_outputs;

    /// A layer of a copy between two places: "layer<copy_window>{form, {{from}}, to}".
    void emit_copy(const kernels::window_copy& c, const std::string& from, const std::string& to) {
        layer("layer<litegraph::firmware::copy_window>{" + literal_printer{"copy"}(c) + ", {{" +
              from + "}}, " + to + "}");
    }

    /// A patched stage (runtime/patches.hpp) patch by patch: each patch's
    /// layers as ordinary layers over the stage's Scratch buffer at the
    /// offsets its tiling planned, their forms those of the patch (its
    /// regions and paddings), with the copies between them (crops, concat
    /// slices, the patch into the split tensor) and a global pool's bands.
    /// Every layer's kernel scratch is one planned buffer of the stage's step.
    void emit_patched(const runtime::instruction& ins, const std::string& where) {
        using runtime::patch_place;
        const auto* inst = dynamic_cast<const runtime::patched_stage_instance*>(ins.k.get());
        if (!inst) throw error(where + ": internal error: not a patched stage's kernel");
        const auto& d = inst->stage();
        const auto& t = inst->tiling();
        const auto& block = inst->block();
        const tensor_ref* y = &ins.io.output("Out");
        const tensor_ref* scr = &ins.io.output("Scratch");
        const auto [sb, soff] = prog.var_buffers()[static_cast<std::size_t>(var_of(scr))];
        if (sb < 0) throw unsupported_error(where + ": its scratch is not a planned buffer");
        // The stage's inputs; the offsets form_of sees them at lie after the
        // scratch.
        std::size_t fake = planner::align_up(t.scratch_bytes, 64);
        const auto& xs = ins.io.inputs.at(0).args;
        std::vector<std::size_t> input_fake;
        for (auto* x : xs) {
            input_fake.push_back(fake);
            fake += planner::align_up(x->bytes(), 64);
        }
        const int kscratch = static_cast<int>(scratch_layers.size());
        scratch_layers.push_back({{}, step});
        // The stage is one layer of the network, a group of its patches, each
        // a group of that patch's layers: walk_patches' steps, written.
        struct writer {
            generator& gen;
            const runtime::patched_stage_instance& inst;
            const runtime::stage_desc& d;
            const graph::graph& block;
            const std::vector<tensor_ref*>& xs;
            const std::vector<std::size_t>& input_fake;
            const tensor_ref* y;
            int sb;
            std::int64_t soff;
            std::size_t fake;
            int kscratch;
            const std::string& where;
            std::string stage;  // "make_group(" and the patches written so far
            std::vector<std::string> patch_layers;

            /// A place as the header names it ("{buffer, offset}"), and the
            /// byte offset form_of sees it at.
            std::pair<std::string, std::size_t> at(patch_place p, const std::string& w) const {
                switch (p.at) {
                    case patch_place::where::input:
                        return {gen.at(xs[p.index], w), input_fake[p.index]};
                    case patch_place::where::scratch: {
                        std::ostringstream o;  // (not string +: GCC 12's -Wrestrict false positive)
                        o << "{" << sb << ", " << soff + p.index << "}";
                        return {o.str(), p.index};
                    }
                    case patch_place::where::output:
                        break;
                }
                return {gen.at(y, w), 0};
            }
            std::string lwhere(std::size_t p, std::size_t i) const {
                return where + ", layer " + block.op_label(d.layers[i].op) + ", patch " +
                       std::to_string(p);
            }
            void copy(const kernels::window_copy& c, patch_place from, patch_place to) {
                gen.emit_copy(c, at(from, where).first, at(to, where).first);
            }
            void band(std::size_t p, std::size_t i, const kernels::band_pool_geometry& g,
                      patch_place from) {
                const auto w = lwhere(p, i);
                gen.layer("layer<litegraph::firmware::band_pool>{" + literal_printer{w}(g) +
                          ", {{" + at(from, w).first + "}}, " + gen.at(y, w) + "}");
            }
            void layer(std::size_t p, std::size_t i, const std::vector<patch_place>& in,
                       patch_place out) {
                const auto& l = d.layers[i];
                const auto& node = block.ops[static_cast<std::size_t>(l.op)];
                const auto w = lwhere(p, i);
                if (l.k == runtime::stage_layer::kind::concat) {
                    // A channel concat: each input's planes after the ones before.
                    if (!op_declares<ops::concat>(node.type))
                        throw unsupported_error(w + ": " + node.type +
                                                " (inputs of different steps) has no firmware "
                                                "form inside a patched stage");
                    const auto& os = d.shapes.at(l.out);
                    if (os[0] != 1)
                        throw unsupported_error(w + ": a concat of batch " + std::to_string(os[0]) +
                                                " in a patch");
                    const auto& tl = inst.tiling().tiles[p][i];
                    const auto elem = static_cast<std::int64_t>(size_of(d.types.at(l.out)));
                    const auto hw = tl.out.h() * tl.out.w();
                    std::int64_t c0 = 0;
                    for (std::size_t j = 0; j < l.inputs.size(); ++j) {
                        const auto c = d.shapes.at(l.inputs[j])[1];
                        kernels::window_copy wc{c, elem, tl.out.h(), tl.out.w(),
                                                0, 0,    tl.out.h(), tl.out.w(),
                                                0, 0,    tl.out.h(), tl.out.w()};
                        gen.emit_copy(wc, at(in[j], w).first,
                                      at(patch_place::scratch(
                                             out.index + static_cast<std::size_t>(c0 * hw * elem)),
                                         w)
                                          .first);
                        c0 += c;
                    }
                    return;
                }
                const auto pio = inst.layer_io(p, i);
                sub_places sp;
                sp.bytes = fake + 64;
                sp.scratch = kscratch;
                for (std::size_t j = 0; j < in.size(); ++j) sp.at[(*pio.inputs)[j]] = at(in[j], w);
                sp.at[pio.output] = at(out, w);
                graph::op_node patched = node;
                patched.attrs = runtime::patch_attrs(node, l, inst.tiling().tiles[p][i]);
                gen.sub = &sp;
                try {
                    if (!visit_firmware_op(firmware::op_types{}, patched,
                                           [&]<class Op>() { gen.emit<Op>(patched, *pio.io, w); }))
                        throw unsupported_error(w + " has no compile-time form yet (" +
                                                firmware_types(firmware::op_types{}) + " do)");
                } catch (...) {
                    gen.sub = nullptr;
                    throw;
                }
                gen.sub = nullptr;
            }
            void end_patch(std::size_t p) {
                stage += std::string(p ? "," : "") + "\n        make_group(";
                for (std::size_t k = 0; k < patch_layers.size(); ++k)
                    stage += (k ? ",\n            " : "\n            ") + patch_layers[k];
                stage += ")";
                patch_layers.clear();
                gen.patch_path = "std::get<" + std::to_string(p + 1) + ">(std::get<" +
                                 std::to_string(gen.layer_count) + ">(network.layers).layers)";
            }
        } w{*this, *inst, d,    block,    xs,    input_fake,    y,
            sb,    soff,  fake, kscratch, where, "make_group(", {}};
        patch_sink = &w.patch_layers;
        patch_path =
            "std::get<0>(std::get<" + std::to_string(layer_count) + ">(network.layers).layers)";
        struct unsink {
            generator& gen;
            ~unsink() { gen.patch_sink = nullptr; }
        } unsink_at_exit{*this};
        runtime::walk_patches(d, t, inst->feed_vars(), y->shape, size_of(y->type), w);
        patch_sink = nullptr;
        layer(w.stage + ")");
    }

    void emit_layers() {
        // Control flow (runtime/control_flow.hpp) runs blocks as programs of
        // their own: a firmware network is one straight-line plan.
        for (std::size_t i = 0; i < g().ops.size(); ++i)
            if (runtime::is_control_flow_op(g().ops[i].type))
                throw unsupported_error("op " + g().op_label(static_cast<int>(i)) +
                                        ": control flow has no firmware form (a firmware "
                                        "network runs one straight-line plan)");
        step = -1;
        for (int i : prog.execution_order()) {
            ++step;
            const auto& ins = prog.instructions()[static_cast<std::size_t>(i)];
            if (ins.elided) continue;
            const auto& node = g().ops[ins.op];
            const std::string where = "op " + node.type + " ('" + ins.io.label + "')";
            if (node.type == runtime::patched_stage_type) {
                emit_patched(ins, where);
                continue;
            }
            if (!visit_firmware_op(firmware::op_types{}, node,
                                   [&]<class Op>() { emit<Op>(node, ins.io, where); }))
                throw unsupported_error(where + " has no compile-time form yet (" +
                                        firmware_types(firmware::op_types{}) + " do)");
        }
    }

    std::string io_list(bool inputs) const {
        std::ostringstream o;
        const std::size_t n = inputs ? prog.input_count() : prog.output_count();
        for (std::size_t i = 0; i < n; ++i) {
            const auto& v = inputs ? prog.input_var(i) : prog.output_var(i);
            const int vi = inputs ? g().feeds[i].var : g().fetches[i].var;
            const auto& r = prog.var(vi);
            if (r.type != dtype::f32 && !(inputs && r.type == dtype::i8))
                throw unsupported_error(std::string(inputs ? "input" : "output") + " '" + v.name +
                                        "' is " + std::string(name_of(r.type)) + ", only float32" +
                                        (inputs ? " and int8 (--input-dtype int8) are" : " is") +
                                        " supported");
            o << "    {\"" << v.name << "\", " << at(&r, v.name) << ", " << r.numel() << ", "
              << size_of(r.type) << "},\n";
        }
        return o.str();
    }

    /// `sample`: also the sample inputs, the deterministic ones except those in
    /// `given` (codegen --input: checked to be the inputs' dtype and shape).
    std::string header(const std::string& source, bool sample,
                       const std::map<std::string, tensor>& given = {}) {
        emit_layers();
        const auto& bufs = prog.buffers();
        const std::string NS = upper(ns);
        std::ostringstream h;
        h << "// Generated by `litegraph codegen` from " << source
          << ": do not edit.\n"
             "// A firmware network (litegraph/firmware/network.hpp): constexpr weights, the\n"
             "// layers as fused kernel types, and a memory plan the compiler checks.\n"
             "//\n"
             "// Place the arrays by defining before the include (default: no attribute):\n"
             "//   "
          << NS << "_WEIGHTS_ATTR, " << NS << "_SCRATCH_ATTR";
        for (auto& s : seg_names) h << ", " << NS << "_" << upper(s) << "_ATTR";
        h << "\n//   e.g. #define " << NS << "_" << upper(seg_names[0])
          << "_ATTR __attribute__((section(\"." << seg_names[0] << "_bss\")))\n"
          << "#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n\n"
             "#include \"litegraph/firmware/network.hpp\"\n\n";
        for (std::string m : [&] {
                 std::vector<std::string> v{NS + "_WEIGHTS_ATTR", NS + "_SCRATCH_ATTR"};
                 for (auto& s : seg_names) v.push_back(NS + "_" + upper(s) + "_ATTR");
                 return v;
             }())
            h << "#ifndef " << m << "\n#define " << m << "\n#endif\n";
        h << "\nnamespace " << ns << " {\n\n"
          << "/// Bytes of all weights (constexpr arrays, in flash).\n"
          << "inline constexpr std::size_t weight_bytes = " << weight_bytes << ";\n\n"
          << "namespace weights {\n"
          << weights.str() << "}  // namespace weights\n\n";
        if (list_count)
            h << "/// The list inputs of layers (firmware::operand: a planned tensor or\n"
                 "/// a weight array each).\n"
                 "namespace lists {\n"
              << lists.str() << "}  // namespace lists\n\n";
        h << "/// The layers in execution order.\n"
             "inline constexpr auto network = [] {\n"
             "    using namespace litegraph::firmware;\n"
             "    return make_network(\n"
          << layers.str() << ");\n}();\n\n";
        h << "/// The buffers to plan: the activations (alias groups of the runtime\n"
             "/// program), then each layer's scratch, live at its step only: bytes,\n"
             "/// first and last step of the execution order.\n"
             "inline constexpr std::size_t buffer_table["
          << bufs.size() + scratch_layers.size() << "][3] = {";
        // A buffer that holds only outputs nothing reads (rnn's State: the
        // layer does not write them) takes no bytes.
        std::vector<bool> used(bufs.size(), false);
        for (std::size_t v = 0; v < prog.var_buffers().size(); ++v) {
            const int b = prog.var_buffers()[v].first;
            if (b >= 0 && !unread_outputs.count(static_cast<int>(v)))
                used[static_cast<std::size_t>(b)] = true;
        }
        for (std::size_t i = 0; i < bufs.size(); ++i)
            h << (i % 4 == 0 ? "\n    " : " ") << "{" << (used[i] ? bufs[i].size : 0) << ", "
              << bufs[i].first << ", " << bufs[i].last << "},";
        for (auto& [ls, st] : scratch_layers) {
            h << "\n    {";
            if (ls.empty()) h << "16";
            if (ls.size() > 1) h << "litegraph::firmware::largest({";
            for (std::size_t k = 0; k < ls.size(); ++k)
                h << (k ? ",\n        " : "") << "litegraph::firmware::planned_scratch_bytes("
                  << ls[k] << ")";
            if (ls.size() > 1) h << "})";
            h << ", " << st << ", " << st << "},";
        }
        h << "};\n"
          << "inline constexpr auto buffers = litegraph::planner::buffers_from(buffer_table);\n"
          << "inline constexpr std::array<litegraph::planner::segment, " << segs.size()
          << "> segments{{";
        for (std::size_t s = 0; s < segs.size(); ++s)
            h << (s ? ", " : "") << "{\"" << seg_names[s] << "\", " << segs[s].capacity << "u, "
              << segs[s].alignment << "}";
        h << "}};\n"
          << "/// The plan, computed by the compiler; the build stops here when it does\n"
             "/// not fit, and BytesShort in the message says by how much.\n"
             "inline constexpr auto plan = litegraph::planner::plan_fixed(buffers, segments);\n"
             "static_assert(litegraph::planner::network_fits<plan.shortfall>());\n"
             "static_assert(plan.valid, \"litegraph codegen: the compile-time plan fails "
             "validation\");\n\n";
        h << "/// The activation arrays, one per segment, fastest first.\n";
        for (std::size_t s = 0; s < segs.size(); ++s)
            h << "inline constexpr std::size_t " << seg_names[s]
              << "_bytes = litegraph::firmware::array_bytes(plan.used[" << s << "]);\n"
              << "alignas(64) inline std::byte " << seg_names[s] << "[" << seg_names[s]
              << "_bytes] " << NS << "_" << upper(seg_names[s]) << "_ATTR;\n";
        h << "inline std::byte* const segment_bases[] = {";
        for (std::size_t s = 0; s < segs.size(); ++s) h << (s ? ", " : "") << seg_names[s];
        h << "};\n\n";
        h << "/// The shared scratch array, for layers without a planned scratch buffer.\n"
             "inline constexpr std::size_t scratch_bytes = network.scratch_bytes();\n"
             "alignas(16) inline std::byte scratch[scratch_bytes] "
          << NS << "_SCRATCH_ATTR;\n\n"
          << "inline constexpr litegraph::firmware::memory<buffers.size(), segments.size()> "
             "memory{&plan, segment_bases, scratch};\n\n"
          << "struct io_tensor {\n    const char* name;\n"
             "    litegraph::firmware::tensor_at at;\n    std::size_t elements;\n"
             "    std::size_t element_bytes;  // 4: float32, 1: int8 (--input-dtype int8)\n};\n"
          << "inline constexpr io_tensor inputs[] = {\n"
          << io_list(true) << "};\n"
          << "inline constexpr io_tensor outputs[] = {\n"
          << io_list(false) << "};\n\n"
          << "/// Where input i goes before run() (row-major; float32, or int8 when\n"
             "/// inputs[i].element_bytes is 1: real = scale * q, see `litegraph plan\n"
             "/// --input-dtype int8`).\n"
             "inline float* input(std::size_t i = 0) {\n"
             "    return memory.f32(inputs[i].at);\n}\n"
             "inline std::int8_t* input_i8(std::size_t i = 0) {\n"
             "    return memory.i8(inputs[i].at);\n}\n"
             "inline void* input_bytes(std::size_t i = 0) {\n"
             "    return memory.bytes(inputs[i].at);\n}\n"
             "/// Output i after run(); valid until the next run.\n"
             "inline const float* output(std::size_t i = 0) {\n"
             "    return memory.f32(outputs[i].at);\n}\n"
             "/// One inference: no heap, no exceptions.\n"
             "inline void run() {\n    network.run(memory);\n}\n";
        if (sample) {
            h << "\n/// The deterministic input `litegraph run` feeds (sin(0.37 i) cos(0.011 "
                 "i)),\n/// or the .npy codegen --input gave, read-only data placed as the "
                 "weights are.\n";
            for (std::size_t i = 0; i < prog.input_count(); ++i) {
                const auto& r = prog.var(g().feeds[i].var);
                const auto it = given.find(prog.input_var(i).name);
                const tensor made =
                    it == given.end() ? runtime::deterministic_input(r.type, r.shape) : tensor{};
                const tensor& t = it == given.end() ? made : it->second;
                if (it != given.end()) h << "// " << it->first << ": from codegen --input\n";
                const bool i8 = r.type == dtype::i8;
                h << "alignas(16) " << NS << "_WEIGHTS_ATTR constexpr "
                  << (i8 ? "std::int8_t" : "float") << " sample_input_" << i << "[" << t.numel()
                  << "] = {";
                for (std::int64_t k = 0; k < t.numel(); ++k) {
                    h << (k % (i8 ? 24 : 8) == 0 ? "\n    " : " ");
                    if (i8)
                        h << static_cast<int>(reinterpret_cast<const std::int8_t*>(t.data())[k]);
                    else
                        h << float_literal(reinterpret_cast<const float*>(t.data())[k],
                                           "sample input");
                    h << ",";
                }
                h << "};\n";
            }
            h << "inline constexpr const void* sample_inputs[] = {";
            for (std::size_t i = 0; i < prog.input_count(); ++i)
                h << (i ? ", " : "") << "sample_input_" << i;
            h << "};\n";
        }
        h << "\n}  // namespace " << ns << "\n";
        return h.str();
    }
};

}  // namespace codegen_detail

/// The header of `prog`, a program prepared (prepare_plan) with the inputs
/// it is written for.  Throws unsupported_error for a node no firmware op
/// holds, a constant that is not float32 / int8, a value a literal cannot
/// spell.
inline header_text write_header(runtime::program& prog, const header_options& o) {
    codegen_detail::generator gen{prog, o.ns, o.segment_names, o.segments};
    header_text out;
    out.text = gen.header(o.source, o.sample_input, o.inputs);
    out.layers = gen.layer_count;
    out.patch_layers = gen.patch_layer_count;
    out.weight_bytes = gen.weight_bytes;
    return out;
}

}  // namespace litegraph::firmware
