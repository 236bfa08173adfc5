// The typed graph IR: op nodes and variable nodes in SSA form (every variable
// node has at most one producer), as Paddle Lite's SSA graph.  A Paddle var
// written twice becomes two variable nodes ("x" and "x@1").
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/dtype.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/shape.hpp"
#include "litegraph/core/tensor.hpp"

namespace litegraph::graph {

struct var_node {
    std::string name;  // unique in the graph
    dtype type = dtype::f32;
    shape_t shape;  // as declared by the model; -1 for unknown dims
    bool persistable = false;
    int lod_level = 0;
    std::optional<tensor> value;  // parameter data of a persistable variable
    int producer = -1;            // op index, -1 for feeds and parameters
    std::vector<int> consumers;   // op indices (an op reading twice is listed once)
};

struct slot {
    std::string name;       // Paddle's parameter name: "X", "Filter", "Out", ...
    std::vector<int> vars;  // variable node indices
};

struct op_node {
    std::string type;
    std::vector<slot> inputs;
    std::vector<slot> outputs;
    attr_map attrs;

    const slot* input(std::string_view s) const { return find(inputs, s); }
    const slot* output(std::string_view s) const { return find(outputs, s); }

private:
    static const slot* find(const std::vector<slot>& v, std::string_view s) {
        for (auto& x : v)
            if (x.name == s) return &x;
        return nullptr;
    }
};

/// A program input (feed) or output (fetch): the variable and Paddle's `col`.
struct io_binding {
    int var = -1;
    int col = 0;
};

/// A slot as named in a model: slot name and variable names.
using named_slots = std::vector<std::pair<std::string, std::vector<std::string>>>;

class graph {
public:
    std::vector<var_node> vars;
    std::vector<op_node> ops;
    std::vector<io_binding> feeds;    // sorted by col
    std::vector<io_binding> fetches;  // sorted by col
    /// Graphs held by ops (a `subgraph` op's attribute sub_block indexes this).
    std::vector<graph> sub_blocks;

    /// Index of the variable node named exactly `name`, or -1.
    int find_var(std::string_view name) const {
        auto it = by_name_.find(name);
        return it == by_name_.end() ? -1 : it->second;
    }

    /// Adds a variable node; the name must be new.
    int add_var(var_node v) {
        if (find_var(v.name) >= 0) throw graph_error("variable '" + v.name + "' declared twice");
        int id = static_cast<int>(vars.size());
        by_name_.emplace(v.name, id);
        vars.push_back(std::move(v));
        return id;
    }

    /// Adds an op by variable node indices and links producers and consumers.
    int add_op(op_node op) {
        int id = static_cast<int>(ops.size());
        for (auto& s : op.outputs)
            for (int v : s.vars) {
                check_var(v);
                if (vars[v].producer >= 0)
                    throw graph_error("variable '" + vars[v].name + "' has two producers");
                vars[v].producer = id;
            }
        for (auto& s : op.inputs)
            for (int v : s.vars) {
                check_var(v);
                auto& c = vars[v].consumers;
                if (std::find(c.begin(), c.end(), id) == c.end()) c.push_back(id);
            }
        ops.push_back(std::move(op));
        return id;
    }

    /// Rebuilds producer/consumer links and the name index after a pass edited
    /// `vars` or `ops` directly.
    void relink() {
        by_name_.clear();
        for (std::size_t i = 0; i < vars.size(); ++i) {
            vars[i].producer = -1;
            vars[i].consumers.clear();
            by_name_.emplace(vars[i].name, static_cast<int>(i));
        }
        auto ops_copy = std::move(ops);
        ops.clear();
        for (auto& op : ops_copy) add_op(std::move(op));
    }

    /// Op indices in a topological order; among ready ops the lowest index
    /// (program order) goes first, so a valid Paddle program keeps its order.
    /// Throws graph_error naming the ops of a cycle.
    std::vector<int> topo_order() const {
        const int n = static_cast<int>(ops.size());
        std::vector<int> pending(n, 0);
        std::vector<std::vector<int>> next(n);
        for (int i = 0; i < n; ++i)
            for (auto& s : ops[i].inputs)
                for (int v : s.vars) {
                    int p = vars[v].producer;
                    if (p >= 0 && std::find(next[p].begin(), next[p].end(), i) == next[p].end()) {
                        next[p].push_back(i);
                        ++pending[i];
                    }
                }
        std::vector<int> order, ready;
        for (int i = n - 1; i >= 0; --i)
            if (pending[i] == 0) ready.push_back(i);
        // `ready` is kept sorted descending so that back() is the lowest index.
        while (!ready.empty()) {
            int i = ready.back();
            ready.pop_back();
            order.push_back(i);
            for (int j : next[i])
                if (--pending[j] == 0)
                    ready.insert(std::upper_bound(ready.begin(), ready.end(), j, std::greater<>{}),
                                 j);
        }
        if (static_cast<int>(order.size()) != n) {
            std::string names;
            for (int i = 0; i < n; ++i)
                if (pending[i] > 0) {
                    if (!names.empty()) names += ", ";
                    names += ops[i].type + " #" + std::to_string(i);
                }
            throw graph_error("the graph has a cycle through: " + names);
        }
        return order;
    }

    /// Label of an op for messages and DOT: "type" + first output name.
    std::string op_label(int op) const {
        const auto& o = ops[op];
        for (auto& s : o.outputs)
            if (!s.vars.empty()) return o.type + " -> " + vars[s.vars.front()].name;
        return o.type;
    }

private:
    void check_var(int v) const {
        if (v < 0 || v >= static_cast<int>(vars.size()))
            throw graph_error("op refers to variable #" + std::to_string(v) +
                              " that does not exist");
    }
    std::map<std::string, int, std::less<>> by_name_;
};

/// Builds an SSA graph from a Paddle-style program given in program order:
/// variables by name, written possibly more than once.  A read binds to the
/// latest write before it; a read of a name that nothing wrote yet binds to
/// its first later write (which makes a cycle that topo_order reports), and a
/// read of a name that is never written, not a parameter and not a feed is an error.
class builder {
public:
    explicit builder(graph& g) : g_(g) {}

    /// Declares a variable (from the model's var list).  Its first write uses
    /// this node; later writes get versioned nodes.
    int declare(var_node v) { return g_.add_var(std::move(v)); }
    /// Declares an activation variable.
    int declare(std::string name, shape_t shape, dtype type = dtype::f32) {
        var_node v;
        v.name = std::move(name);
        v.shape = std::move(shape);
        v.type = type;
        return declare(std::move(v));
    }

    /// Adds an op of `type` reading/writing variables by name.
    void add_op(std::string type, const named_slots& inputs, const named_slots& outputs,
                attr_map attrs) {
        pending_.push_back({std::move(type), inputs, outputs, std::move(attrs)});
    }

    /// How many ops were added so far (op i of the finished graph is the i-th added).
    std::size_t pending_ops() const noexcept { return pending_.size(); }

    void feed(std::string_view name, int col) { feeds_.push_back({std::string(name), col}); }
    void fetch(std::string_view name, int col) { fetches_.push_back({std::string(name), col}); }

    /// Resolves names to SSA nodes and fills the graph.
    void finish() {
        // Which pending op writes each name first, and whether a name is written at all.
        std::map<std::string, int, std::less<>> written;
        for (std::size_t i = 0; i < pending_.size(); ++i)
            for (auto& [slot, names] : pending_[i].outputs)
                for (auto& n : names) written.emplace(n, static_cast<int>(i));
        std::map<std::string, int, std::less<>> version_count;
        // A feed is its variable's first value: an op that writes a fed name
        // makes a new version of it.
        for (auto& f : feeds_) version_count[f.first] = 1;
        std::map<std::string, int, std::less<>> current;  // name -> node written so far
        // First pass: create every output node in program order.
        std::vector<std::vector<std::vector<int>>> out_ids(pending_.size());
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            for (auto& [slot, names] : pending_[i].outputs) {
                std::vector<int> ids;
                for (auto& n : names) ids.push_back(write_node(n, version_count));
                out_ids[i].push_back(std::move(ids));
            }
        }
        // Second pass: bind reads, in program order.
        std::map<std::string, int, std::less<>> first_write;
        for (std::size_t i = 0; i < pending_.size(); ++i)
            for (std::size_t s = 0; s < pending_[i].outputs.size(); ++s)
                for (std::size_t k = 0; k < pending_[i].outputs[s].second.size(); ++k)
                    first_write.emplace(pending_[i].outputs[s].second[k], out_ids[i][s][k]);
        for (auto& f : feeds_) current[f.first] = var_of(f.first);
        for (std::size_t i = 0; i < pending_.size(); ++i) {
            auto& p = pending_[i];
            op_node op;
            op.type = p.type;
            op.attrs = std::move(p.attrs);
            for (auto& [slot, names] : p.inputs) {
                litegraph::graph::slot s{slot, {}};
                for (auto& n : names) s.vars.push_back(read_node(n, current, first_write, p.type));
                op.inputs.push_back(std::move(s));
            }
            for (std::size_t s = 0; s < p.outputs.size(); ++s) {
                op.outputs.push_back({p.outputs[s].first, out_ids[i][s]});
                for (std::size_t k = 0; k < p.outputs[s].second.size(); ++k)
                    current[p.outputs[s].second[k]] = out_ids[i][s][k];
            }
            g_.add_op(std::move(op));
        }
        for (auto& [n, col] : feeds_) g_.feeds.push_back({var_of(n), col});
        for (auto& [n, col] : fetches_) {
            auto it = current.find(n);
            int v = it != current.end() ? it->second : var_of(n);
            g_.fetches.push_back({v, col});
        }
        auto by_col = [](const io_binding& a, const io_binding& b) { return a.col < b.col; };
        std::stable_sort(g_.feeds.begin(), g_.feeds.end(), by_col);
        std::stable_sort(g_.fetches.begin(), g_.fetches.end(), by_col);
    }

private:
    struct pending_op {
        std::string type;
        named_slots inputs, outputs;
        attr_map attrs;
    };

    int var_of(const std::string& name) const {
        int v = g_.find_var(name);
        if (v < 0) throw graph_error("variable '" + name + "' is used but not declared");
        return v;
    }

    int write_node(const std::string& name, std::map<std::string, int, std::less<>>& versions) {
        int base = var_of(name);
        int& k = versions[name];
        if (k++ == 0 && !g_.vars[base].persistable) return base;
        var_node v;
        v.name = name + "@" + std::to_string(k);
        v.type = g_.vars[base].type;
        v.shape = g_.vars[base].shape;
        v.lod_level = g_.vars[base].lod_level;
        return g_.add_var(std::move(v));
    }

    int read_node(const std::string& name, const std::map<std::string, int, std::less<>>& current,
                  const std::map<std::string, int, std::less<>>& first_write,
                  const std::string& op_type) const {
        if (auto it = current.find(name); it != current.end()) return it->second;
        int base = var_of(name);
        if (g_.vars[base].persistable) return base;
        if (auto it = first_write.find(name); it != first_write.end()) return it->second;
        throw graph_error("op " + op_type + " reads '" + name +
                          "', which is neither a parameter, a feed nor written by any op");
    }

    graph& g_;
    std::vector<pending_op> pending_;
    std::vector<std::pair<std::string, int>> feeds_, fetches_;
};

}  // namespace litegraph::graph
