// The PIR loader's walk of a program: the top block, each op's operands,
// attributes and results, the parameters (`p`) and, once the JSON is read,
// the parameter file.  What each op becomes is translate.hpp's (`translate`).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/pir/blocks.hpp"
#include "litegraph/loader/paddle/pir/control_flow.hpp"
#include "litegraph/loader/paddle/pir/names.hpp"

namespace litegraph::paddle::pir {

namespace detail {

/// Walks the program; `translate` turns each op of the top block into graph ops.
class program_reader : public region_reader {
public:
    /// Reads the program into the graph and the topology part of the model info.
    void read(const json& root) {
        if (!root.is_object())
            fail("(top level)", "expected a JSON object, got " + type_name(root));
        const auto& base = member(root, "base_code", "(top level)");
        const auto& magic = member(base, "magic", "base_code");
        if (!magic.is_string() || magic.get_ref<const std::string&>() != "pir")
            fail("base_code.magic",
                 "not a PIR program (magic is " +
                     (magic.is_string() ? "\"" + clip(magic.get<std::string>()) + "\""
                                        : type_name(magic)) +
                     ", expected \"pir\")");
        if (base.contains("version"))
            m_.info.program_version = as_int(base["version"], "base_code.version");
        const auto& program = member(root, "program", "(top level)");
        const auto& regions = array_member(program, "regions", "program");
        if (regions.empty()) fail("program.regions", "the program has no region");
        if (regions.size() > 1)
            fail("program.regions", "the program has " + std::to_string(regions.size()) +
                                        " top-level regions, expected 1");
        const auto& blocks = array_member(regions[0], "blocks", "program.regions[0]");
        if (blocks.size() != 1)
            fail("program.regions[0].blocks",
                 "the top region has " + std::to_string(blocks.size()) + " blocks, expected 1");
        const auto& block = blocks[0];
        const std::string bpath = "program.regions[0].blocks[0]";
        if (!block.is_object())
            fail(bpath, "expected an object (a block), got " + type_name(block));
        if (block.contains("args") && !(block["args"].is_array() && block["args"].empty()))
            fail(bpath + ".args", "the top block has arguments");
        const auto& ops = array_member(block, "ops", bpath);
        m_.info.num_blocks = 1;
        m_.info.format = "pir-json";
        collect_fetch_names(ops);
        scopes_.emplace_back();
        for (std::size_t i = 0; i < ops.size(); ++i)
            read_op(ops[i], "ops[" + std::to_string(i) + "]");
        scopes_.pop_back();
        // Ops seen only inside control-flow regions: what they would become.
        for (auto& [name, n] : m_.info.op_counts)
            if (!m_.info.op_types.count(name)) {
                auto t = translated_type(name);
                m_.info.op_types[name] = t ? std::string(*t) : name;
                if (!t) m_.info.op_notes[name] = "no kernel; only inside control flow";
            }
        try {
            b_.finish();
        } catch (const graph_error& e) {
            throw graph_error(file_ + ": " + e.what());
        }
        for (auto& x : m_.graph.feeds) {
            const auto& v = m_.graph.vars[static_cast<std::size_t>(x.var)];
            m_.info.feeds.push_back({v.name, v.type, v.shape, x.col});
        }
        for (auto& x : m_.graph.fetches) {
            const auto& v = m_.graph.vars[static_cast<std::size_t>(x.var)];
            m_.info.fetches.push_back({v.name, v.type, v.shape, x.col});
        }
    }

    /// Reads the parameter records (byte-sorted order of the names) and gives
    /// their values to the graph variables that use them.  `params` absent:
    /// topology only (every parameter keeps its declared shape and no value).
    void read_params(std::optional<std::string_view> params, const std::string& label,
                     bool require_params) {
        std::vector<std::string> names;
        for (auto& [name, idx] : params_) names.push_back(name);  // std::map: byte-sorted
        if (!params) {
            if (require_params && !names.empty())
                throw io_error(file_ + ": the program has " + std::to_string(names.size()) +
                               " parameters but no parameter file (*.pdiparams) was found");
            return;
        }
        paddle::detail::record_reader reader(*params, label);
        std::map<std::string, tensor> stored;
        for (auto& name : names) {
            const auto& v = values_[params_.at(name)];
            auto t = reader.read(name, [&](const record_info& r) {
                if (v.typed && r.type != v.type)
                    throw format_error(
                        label, r.desc_offset,
                        "parameter '" + name + "' is stored as " + std::string(name_of(r.type)) +
                            ", the program declares " + std::string(name_of(v.type)));
                if (!compatible(v.shape, r.dims))
                    throw format_error(label, r.desc_offset,
                                       "parameter '" + name + "' is stored with dims " +
                                           to_string(r.dims) + ", the program declares " +
                                           to_string(v.shape));
            });
            m_.info.num_params += 1;
            m_.info.param_elements += t.numel();
            m_.info.param_bytes += t.bytes();
            stored.emplace(name, std::move(t));
        }
        reader.expect_end(names.empty() ? std::string() : names.back());
        // Derived parameters first: they copy; the plain ones then move (a
        // parameter used under two names is copied for the second).
        for (auto& v : values_) {
            if (v.var.empty() || v.k != value::kind::derived) continue;
            const auto& src = stored.at(v.param);
            tensor t(src.type(), v.shape);
            if (t.bytes() != src.bytes())
                fail(v.def_path, "reshaping parameter '" + v.param + "' " + to_string(src.shape()) +
                                     " to " + to_string(v.shape) + " changes its size");
            if (t.bytes()) std::memcpy(t.data(), src.data(), t.bytes());
            var_node(v.var).value = std::move(t);
        }
        std::map<std::string, std::string> first_var;
        for (auto& v : values_) {
            if (v.var.empty() || v.k != value::kind::param) continue;
            auto [it, fresh] = first_var.emplace(v.param, v.var);
            if (fresh)
                var_node(v.var).value = std::move(stored.at(v.param));
            else if (it->second != v.var)
                var_node(v.var).value = var_node(it->second).value;
        }
    }

    /// Moves each control-flow block into a graph of its own (blocks.hpp);
    /// after read_params, which gives the parameters their values.
    void split_blocks() {
        tag_new_ops();
        try {
            detail::split_blocks(m_.graph, op_block_);
        } catch (const graph_error& e) {
            throw graph_error(file_ + ": " + e.what());
        }
    }

protected:
    program_reader(std::string file, model& m) : region_reader(std::move(file), m) {}

    /// Adds what op `v` (of the top block) becomes to the graph.
    virtual void translate(op_view& v) = 0;

    void collect_fetch_names(const json& ops) {
        for (const auto& op : ops) {
            if (!op.is_object()) continue;
            auto t = op.find("#");
            if (t == op.end() || !t->is_string() || t->get_ref<const std::string&>() != "1.fetch")
                continue;
            auto in = op.find("I"), attrs = op.find("A");
            if (in == op.end() || !in->is_array() || in->size() != 1 || !(*in)[0].is_object())
                continue;
            auto id = (*in)[0].find("%");
            if (id == (*in)[0].end() || !id->is_number_integer() || attrs == op.end() ||
                !attrs->is_array())
                continue;
            for (const auto& a : *attrs)
                if (a.is_object() && a.value("N", json()) == "name" && a.contains("AT") &&
                    a["AT"].is_object() && a["AT"].contains("D") && a["AT"]["D"].is_string()) {
                    auto name = a["AT"]["D"].get<std::string>();
                    if (!name.empty())
                        fetch_names_.emplace(id->get<std::int64_t>(), std::move(name));
                }
        }
    }

    void read_op(const json& op, const std::string& path) override {
        if (!op.is_object()) fail(path, "expected an object (an op), got " + type_name(op));
        const std::string name = as_string(member(op, "#", path), path + ".#");
        if (name == "p") return read_param(op, path);
        ++m_.info.op_counts[name];
        op_view v;
        v.name = name;
        v.path = path;
        // Inputs must be defined before the op (outer scopes included).
        const auto& in = array_member(op, "I", path);
        for (std::size_t i = 0; i < in.size(); ++i) {
            const auto ipath = path + ".I[" + std::to_string(i) + "]";
            const auto id = as_int(member(in[i], "%", ipath), ipath + ".%");
            v.in.push_back(id);
            if (id == 0) {
                v.in_vals.push_back(op_view::npos);
                continue;
            }
            auto vi = lookup(id);
            if (!vi) fail(ipath, "value %" + std::to_string(id) + " used before it is defined");
            v.in_vals.push_back(*vi);
        }
        if (op.contains("A")) {
            const auto& attrs = array_member(op, "A", path);
            for (std::size_t i = 0; i < attrs.size(); ++i) {
                const auto apath = path + ".A[" + std::to_string(i) + "]";
                const auto& an = as_string(member(attrs[i], "N", apath), apath + ".N");
                bool known = true;
                auto val = read_attr(member(attrs[i], "AT", apath), apath + ".AT", known);
                if (!known && v.unknown_attr.empty()) v.unknown_attr = an;
                v.attrs[an] = std::move(val);
            }
        }
        // Nested regions (control flow) are read and checked before the results
        // are defined: a region sees the values before its op, not its results.
        if (op.contains("regions")) v.blocks = read_regions(op["regions"], path + ".regions");
        const auto& out = array_member(op, "O", path);
        for (std::size_t i = 0; i < out.size(); ++i) {
            const auto opath = path + ".O[" + std::to_string(i) + "]";
            const auto id = as_int(member(out[i], "%", opath), opath + ".%");
            value val;
            if (out[i].contains("TT"))
                val = from_type(read_type(out[i]["TT"], opath + ".TT"));
            else {
                val.k = value::kind::none;
                val.none_why = "its type is not given";
            }
            v.out.push_back(id);
            v.out_vals.push_back(define(id, std::move(val), opath));
        }
        // An op inside a control-flow region is translated as well, tagged
        // with its block (control_flow.hpp).
        tag_new_ops();
        translate(v);
        tag_new_ops();
    }

    void read_param(const json& op, const std::string& path) {
        if (scopes_.size() > 1) fail(path, "a parameter inside a control-flow region");
        const auto& a = array_member(op, "A", path);
        if (a.size() < 4)
            fail(path + ".A", "a parameter's A is [distributed, parameter, clip, name]");
        const std::string name = as_string(a[3], path + ".A[3]");
        if (name.empty()) fail(path + ".A[3]", "a parameter without a name");
        const auto& o = member(op, "O", path);
        const auto id = as_int(member(o, "%", path + ".O"), path + ".O.%");
        auto t = read_type(member(o, "TT", path + ".O"), path + ".O.TT");
        if (!t.tensor) fail(path + ".O.TT", "a parameter of type " + t.tag + ", not a tensor");
        for (auto d : t.shape)
            if (d < 0) fail(path + ".O.TT", "parameter '" + name + "' has an unknown dim");
        value v = from_type(t);
        v.k = value::kind::param;
        v.param = name;
        if (params_.count(name)) fail(path + ".A[3]", "parameter '" + name + "' is declared twice");
        params_[name] = define(id, std::move(v), path + ".O");
    }

    static bool compatible(const shape_t& declared, const shape_t& stored) {
        if (declared.size() != stored.size()) return false;
        for (std::size_t i = 0; i < declared.size(); ++i)
            if (declared[i] >= 0 && declared[i] != stored[i]) return false;
        return true;
    }
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
