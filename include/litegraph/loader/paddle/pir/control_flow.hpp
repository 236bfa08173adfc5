// The PIR loader's control flow: `1.if`, `1.while`, their nested regions
// and `2.yield` are parsed and checked (a region sees the values before its
// op, block arguments have negative ids).  The ops of every block are
// translated into the one graph being built, each tagged with its block
// (op_block_); a block's arguments are the results of a placeholder op
// (`litegraph_block_args`) and its `2.yield` a placeholder op
// (`litegraph_yield`).  Once the program is read, pir/blocks.hpp moves each
// block into a graph of its own held by its control-flow op.
#pragma once

#include <string>
#include <string_view>

#include "litegraph/loader/paddle/pir/builder.hpp"

namespace litegraph::paddle::pir {

/// Op names that carry or end nested regions.
inline bool is_control_flow(std::string_view name) {
    return name == "1.if" || name == "1.while" || name == "2.yield" || name == "1.pylayer" ||
           name == "0.yield" || name == "2.if" || name == "2.while";
}

namespace detail {

/// Reading the nested regions of a control-flow op.
class region_reader : public op_builder {
protected:
    using op_builder::op_builder;

    /// Reads one op (program.hpp); regions read theirs with it.
    virtual void read_op(const json& op, const std::string& path) = 0;

    /// The block each graph op added so far belongs to (0: the top block).
    std::vector<int> op_block_;
    int cur_block_ = 0;
    int next_block_ = 1;

    /// Tags the ops added since op_block_ was last brought up to date.
    void tag_new_ops() { op_block_.resize(b_.pending_ops(), cur_block_); }

    /// Reads the regions of a control-flow op; returns the ids of their blocks.
    std::vector<int> read_regions(const json& regions, const std::string& path) {
        if (!regions.is_array()) fail(path, "expected an array, got " + type_name(regions));
        std::vector<int> ids;
        tag_new_ops();
        const int outer = cur_block_;
        bool args_ok = true;
        for (std::size_t r = 0; r < regions.size(); ++r) {
            const auto rpath = path + "[" + std::to_string(r) + "]";
            const auto& blocks = array_member(regions[r], "blocks", rpath);
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const auto bpath = rpath + ".blocks[" + std::to_string(b) + "]";
                ++m_.info.num_blocks;
                scopes_.emplace_back();
                cur_block_ = next_block_++;
                ids.push_back(cur_block_);
                std::vector<std::string> arg_vars;
                if (blocks[b].is_object() && blocks[b].contains("args")) {
                    const auto& args = blocks[b]["args"];
                    if (!args.is_array())
                        fail(bpath + ".args", "expected an array, got " + type_name(args));
                    for (std::size_t a = 0; a < args.size(); ++a) {
                        const auto apath = bpath + ".args[" + std::to_string(a) + "]";
                        const auto id = as_int(member(args[a], "#", apath), apath + ".#");
                        if (id >= 0)
                            fail(apath, "block argument %" + std::to_string(id) +
                                            " (block arguments have negative ids)");
                        value val;
                        if (args[a].contains("TT"))
                            val = from_type(read_type(args[a]["TT"], apath + ".TT"));
                        const bool tensor_arg = val.k == value::kind::tensor && val.typed;
                        const auto vi = define(id, std::move(val), apath);
                        if (!tensor_arg) {
                            values_[vi].k = value::kind::none;
                            values_[vi].none_why = "a block argument litegraph does not read";
                            arg_vars.emplace_back();
                            continue;
                        }
                        declare(vi, id_name(id), false, apath);
                        arg_vars.push_back(values_[vi].var);
                    }
                }
                // The block's arguments: results of a placeholder op (a feed of
                // the block's graph once blocks.hpp splits it off).
                std::vector<std::string> named;
                for (auto& n : arg_vars)
                    if (!n.empty()) named.push_back(n);
                if (named.size() != arg_vars.size()) {
                    named.clear();  // an argument that is not a tensor: the op stays unsupported
                    args_ok = false;
                }
                if (!named.empty()) b_.add_op("litegraph_block_args", {}, {{"Out", named}}, {});
                tag_new_ops();
                const auto& ops = array_member(blocks[b], "ops", bpath);
                for (std::size_t i = 0; i < ops.size(); ++i)
                    read_op(ops[i], bpath + ".ops[" + std::to_string(i) + "]");
                tag_new_ops();
                scopes_.pop_back();
            }
        }
        cur_block_ = outer;
        block_args_ok_ = args_ok;
        return ids;
    }

    bool block_args_ok_ = true;  // the last read_regions: every block argument is a tensor
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
