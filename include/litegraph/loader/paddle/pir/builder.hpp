// The PIR loader's graph building: an op as read (op_view), its operands as
// slots, and adding the op litegraph runs (emit) or keeping an op litegraph
// cannot translate under its PIR name (keep_untranslated).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "litegraph/loader/paddle/pir/values.hpp"

namespace litegraph::paddle::pir {

namespace detail {

/// Adding ops to the graph.
class op_builder : public value_reader {
protected:
    using value_reader::value_reader;

    struct op_view {
        std::string name, path;
        std::vector<std::int64_t> in;       // value ids, 0: absent
        std::vector<std::size_t> in_vals;   // value indices (npos: absent)
        std::vector<std::int64_t> out;      // value ids
        std::vector<std::size_t> out_vals;  // value indices
        std::map<std::string, attr_value> attrs;
        std::string unknown_attr;  // the first attribute with a tag litegraph does not read
        std::vector<int> blocks;   // control flow: the blocks of its regions (control_flow.hpp)
        static constexpr std::size_t npos = no_value;
    };

    /// Records what op `name` became: `type` ("" when the loader resolved it),
    /// and a note for the unsupported ones.
    void note(const std::string& name, const std::string& type, const std::string& why) {
        auto it = m_.info.op_types.find(name);
        // Once an instance stays untranslated, the name is marked so.
        if (it == m_.info.op_types.end() || (it->second != name && type == name))
            m_.info.op_types[name] = type;
        if (!why.empty() && !m_.info.op_notes.count(name)) m_.info.op_notes[name] = why;
    }

    // Operand helpers.
    std::size_t in_val(const op_view& v, std::size_t k) const {
        return k < v.in_vals.size() ? v.in_vals[k] : op_view::npos;
    }
    std::string in_path(const op_view& v, std::size_t k) const {
        return v.path + ".I[" + std::to_string(k) + "]";
    }

    template <class T>
    T attr(const op_view& v, const char* n, T fallback) const {
        attr_map m;
        auto it = v.attrs.find(n);
        if (it == v.attrs.end()) return fallback;
        m.set(n, it->second);
        try {
            return m.get<T>(n, fallback);
        } catch (const unsupported_error&) {
            fail(v.path + ".A", std::string("attribute '") + n + "' has an unexpected type");
        }
    }
    void copy(attr_map& to, const op_view& v, const char* from, const char* as = nullptr) const {
        auto it = v.attrs.find(from);
        if (it != v.attrs.end() && !std::holds_alternative<std::monostate>(it->second))
            to.set(as ? as : from, it->second);
    }

    struct slot_spec {
        std::string slot;
        std::vector<std::size_t> vals;  // value indices
        std::vector<std::int64_t> ids;  // for messages
        std::vector<std::string> paths;
    };

    slot_spec in_slot(const op_view& v, std::string slot, std::size_t k) const {
        slot_spec s{std::move(slot), {}, {}, {}};
        if (auto vi = in_val(v, k); vi != op_view::npos) {
            s.vals.push_back(vi);
            s.ids.push_back(v.in[k]);
            s.paths.push_back(in_path(v, k));
        }
        return s;
    }
    /// A list operand (`0.combine`) as one slot of its elements.
    slot_spec list_slot(const op_view& v, std::string slot, std::size_t k) const {
        slot_spec s{std::move(slot), {}, {}, {}};
        auto vi = in_val(v, k);
        if (vi == op_view::npos) return s;
        if (values_[vi].k != value::kind::vec) return in_slot(v, s.slot, k);
        for (std::size_t e = 0; e < values_[vi].elems.size(); ++e) {
            s.vals.push_back(values_[vi].elems[e]);
            s.ids.push_back(v.in[k]);
            s.paths.push_back(in_path(v, k) + " (element " + std::to_string(e) + ")");
        }
        return s;
    }

    /// Adds op `type` to the graph: `inputs` by slot; output k of the PIR op
    /// goes to slot outs[k] (an empty name: not computed by litegraph).
    void emit(const op_view& v, const std::string& type, const std::vector<slot_spec>& inputs,
              const std::vector<std::string>& outs, attr_map attrs) {
        graph::named_slots ins, outputs;
        for (auto& s : inputs) {
            if (s.vals.empty()) continue;
            std::vector<std::string> names;
            for (std::size_t i = 0; i < s.vals.size(); ++i)
                names.push_back(tensor_var(s.vals[i], s.ids[i], s.paths[i]));
            ins.emplace_back(s.slot, std::move(names));
        }
        for (std::size_t k = 0; k < v.out_vals.size(); ++k) {
            const auto vi = v.out_vals[k];
            const std::string slot = k < outs.size() ? outs[k] : std::string();
            if (slot.empty()) {
                auto& val = values_[vi];
                if (val.k == value::kind::tensor || val.k == value::kind::vec) {
                    val.k = value::kind::none;
                    val.none_why = "result " + std::to_string(k) + " of " + v.name +
                                   " is not computed by litegraph";
                }
                continue;
            }
            declare_result(v, k, vi, slot, outputs);
        }
        b_.add_op(type, ins, outputs, std::move(attrs));
        note(v.name, type, "");
    }

    void declare_result(const op_view& v, std::size_t k, std::size_t vi, const std::string& slot,
                        graph::named_slots& outputs) {
        const auto opath = v.path + ".O[" + std::to_string(k) + "]";
        auto& val = values_[vi];
        if (val.k == value::kind::vec) {
            std::vector<std::string> names;
            for (std::size_t e = 0; e < val.elems.size(); ++e) {
                const auto ei = values_[vi].elems[e];
                if (values_[ei].k != value::kind::tensor || !values_[ei].typed) {
                    values_[ei].k = value::kind::none;
                    values_[ei].none_why = "element " + std::to_string(e) + " of " + opath +
                                           " is not a tensor litegraph reads";
                    continue;
                }
                declare(ei, id_name(v.out[k]) + "." + std::to_string(e), false, opath);
                names.push_back(values_[ei].var);
            }
            if (!names.empty()) outputs.emplace_back(slot, std::move(names));
            return;
        }
        if (val.k != value::kind::tensor || !val.typed) {
            if (val.k == value::kind::tensor) {
                val.k = value::kind::none;
                val.none_why =
                    "it has dtype " + val.type_tag + ", which litegraph does not support";
            }
            return;
        }
        declare(vi, id_name(v.out[k]), false, opath);
        outputs.emplace_back(slot, std::vector<std::string>{values_[vi].var});
    }

    /// Keeps op `v` in the graph under its PIR name (no kernel has it):
    /// operands in slot "I" and results in slot "O", in order.
    void keep_untranslated(const op_view& v, const std::string& why) {
        slot_spec ins{"I", {}, {}, {}};
        for (std::size_t k = 0; k < v.in_vals.size(); ++k) {
            const auto vi = v.in_vals[k];
            if (vi == op_view::npos) continue;
            auto add = [&](std::size_t x, const std::string& p) {
                const auto& val = values_[x];
                if (val.k == value::kind::none || val.k == value::kind::vec || !val.typed) return;
                ins.vals.push_back(x);
                ins.ids.push_back(v.in[k]);
                ins.paths.push_back(p);
            };
            if (values_[vi].k == value::kind::vec)
                for (auto e : values_[vi].elems) add(e, in_path(v, k));
            else
                add(vi, in_path(v, k));
        }
        graph::named_slots in_names, outputs;
        if (!ins.vals.empty()) {
            std::vector<std::string> names;
            for (std::size_t i = 0; i < ins.vals.size(); ++i)
                names.push_back(tensor_var(ins.vals[i], ins.ids[i], ins.paths[i]));
            in_names.emplace_back("I", std::move(names));
        }
        for (std::size_t k = 0; k < v.out_vals.size(); ++k)
            declare_result(v, k, v.out_vals[k], "O", outputs);
        // Results spread over several "O" entries: merge them into one slot.
        graph::named_slots merged;
        if (!outputs.empty()) {
            std::vector<std::string> all;
            for (auto& [s, names] : outputs) all.insert(all.end(), names.begin(), names.end());
            merged.emplace_back("O", std::move(all));
        }
        attr_map attrs;
        for (auto& [n, a] : v.attrs)
            if (!std::holds_alternative<std::monostate>(a)) attrs.set(n, a);
        if (!why.empty()) attrs.set("litegraph_unsupported", why);
        b_.add_op(v.name, in_names, merged, std::move(attrs));
        note(v.name, v.name, why);
    }

    /// Result k of `v` is value `vi` (an alias: `1.assign`, `0.split`).
    void alias(const op_view& v, std::size_t k, std::size_t vi) {
        if (k >= v.out.size()) return;
        scopes_.back()[v.out[k]] = vi;
    }
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
