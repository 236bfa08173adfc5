// The PIR loader's control flow: `1.if`, `1.while`, their nested regions
// and `2.yield` are parsed and checked (a region sees the values before its
// op, block arguments have negative ids) but never translated; running such
// a program stops with "unsupported: control flow".
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

    void read_regions(const json& regions, const std::string& path) {
        if (!regions.is_array()) fail(path, "expected an array, got " + type_name(regions));
        for (std::size_t r = 0; r < regions.size(); ++r) {
            const auto rpath = path + "[" + std::to_string(r) + "]";
            const auto& blocks = array_member(regions[r], "blocks", rpath);
            for (std::size_t b = 0; b < blocks.size(); ++b) {
                const auto bpath = rpath + ".blocks[" + std::to_string(b) + "]";
                ++m_.info.num_blocks;
                scopes_.emplace_back();
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
                        define(id, std::move(val), apath);
                    }
                }
                const auto& ops = array_member(blocks[b], "ops", bpath);
                for (std::size_t i = 0; i < ops.size(); ++i)
                    read_op(ops[i], bpath + ".ops[" + std::to_string(i) + "]");
                scopes_.pop_back();
            }
        }
    }
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
