// The PIR loader's values: dtypes, types (`TT`) and attributes (`AT`)
// decoded from JSON, and the table of the program's values (scopes, constants,
// parameters) with the graph variables they become.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "litegraph/core/attributes.hpp"
#include "litegraph/core/tensor.hpp"
#include "litegraph/graph/graph.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/pir/json.hpp"

namespace litegraph::paddle::pir {

/// The dtype of a PIR dtype name (`1.a_dtype` attributes: "float32", "int64", ...).
inline std::optional<dtype> dtype_of_name(std::string_view n) {
    if (n == "float32") return dtype::f32;
    if (n == "float64") return dtype::f64;
    if (n == "float16") return dtype::f16;
    if (n == "int64") return dtype::i64;
    if (n == "int32") return dtype::i32;
    if (n == "int16") return dtype::i16;
    if (n == "int8") return dtype::i8;
    if (n == "uint8") return dtype::u8;
    if (n == "bool") return dtype::boolean;
    return std::nullopt;
}

/// The dtype of a PIR type tag (`0.t_f32`, `0.t_i64`, ...).
inline std::optional<dtype> dtype_of_tag(std::string_view t) {
    if (t == "0.t_f32") return dtype::f32;
    if (t == "0.t_f64") return dtype::f64;
    if (t == "0.t_f16") return dtype::f16;
    if (t == "0.t_i64") return dtype::i64;
    if (t == "0.t_i32") return dtype::i32;
    if (t == "0.t_i16") return dtype::i16;
    if (t == "0.t_i8") return dtype::i8;
    if (t == "0.t_ui8") return dtype::u8;
    if (t == "0.t_bool") return dtype::boolean;
    return std::nullopt;
}

namespace detail {

/// A value index meaning "absent" (an operand with id 0).
inline constexpr std::size_t no_value = static_cast<std::size_t>(-1);

/// A PIR value as the reader knows it.
struct value {
    enum class kind : std::uint8_t {
        tensor,    // an activation (or feed) with a graph variable
        constant,  // known at load: `1.full`, `1.full_int_array`
        param,     // a stored parameter (`p`)
        derived,   // a parameter reshaped at load (reshape of a `p` by a constant shape)
        vec,       // a list of values (`0.combine`, vector-typed results)
        none,      // no graph variable: `none_why` says why
    };
    kind k = kind::tensor;
    bool typed = false;  // a tensor type litegraph has a dtype for
    dtype type = dtype::f32;
    shape_t shape;
    std::string type_tag;  // the PIR type tag, for messages
    std::string var;       // the graph variable once declared
    std::optional<tensor> constant;
    std::vector<std::size_t> elems;  // vec: element values
    std::string param;               // param, derived: the stored parameter's name
    std::string none_why;
    std::string def_path;  // the node that defines it
};

/// A parsed type (`TT`).
struct type_info {
    bool tensor = false;
    bool typed = false;
    dtype type = dtype::f32;
    shape_t shape;
    std::string tag;
    std::vector<type_info> elems;  // 0.t_vec
    bool vec = false;
};

/// The program's values as the reader knows them, their types and attributes.
class value_reader : public json_reader {
protected:
    value_reader(std::string file, model& m) : json_reader(std::move(file)), m_(m), b_(m.graph) {}

    // ---- types -------------------------------------------------------------------

    type_info read_type(const json& tt, const std::string& path, int depth = 0) const {
        if (depth > 8) fail(path, "vector types nested deeper than 8");
        type_info t;
        t.tag = as_string(member(tt, "#", path), path + ".#");
        if (t.tag == "0.t_dtensor") {
            const auto& d = member(tt, "D", path);
            if (!d.is_array() || d.size() < 2)
                fail(path + ".D", "a dense tensor type needs [dtype, dims, ...]");
            t.tensor = true;
            const std::string dt = as_string(member(d[0], "#", path + ".D[0]"), path + ".D[0].#");
            if (auto x = dtype_of_tag(dt)) {
                t.typed = true;
                t.type = *x;
            }
            t.tag = dt;
            if (!d[1].is_array()) fail(path + ".D[1]", "expected the dims (an array)");
            if (d[1].size() > max_rank)
                fail(path + ".D[1]", std::to_string(d[1].size()) + " dims (at most " +
                                         std::to_string(max_rank) + " supported)");
            for (std::size_t i = 0; i < d[1].size(); ++i) {
                const auto dim = as_int(d[1][i], path + ".D[1][" + std::to_string(i) + "]");
                if (dim < -1)
                    fail(path + ".D[1][" + std::to_string(i) + "]",
                         "dim " + std::to_string(dim) + " (dims are >= 0, or -1 when unknown)");
                t.shape.push_back(dim);
            }
        } else if (t.tag == "0.t_vec") {
            const auto& d = member(tt, "D", path);
            if (!d.is_array()) fail(path + ".D", "expected the element types (an array)");
            t.vec = true;
            for (std::size_t i = 0; i < d.size(); ++i)
                t.elems.push_back(
                    read_type(d[i], path + ".D[" + std::to_string(i) + "]", depth + 1));
        }
        return t;
    }

    // ---- attributes ----------------------------------------------------------------

    /// One attribute value (`AT`); monostate and `known = false` for tags
    /// litegraph does not read.
    attr_value read_attr(const json& at, const std::string& path, bool& known) const {
        known = true;
        const std::string tag = as_string(member(at, "#", path), path + ".#");
        const std::string dpath = path + ".D";
        auto data = [&]() -> const json& { return member(at, "D", path); };
        if (tag == "0.a_bool") return as_bool(data(), dpath);
        if (tag == "0.a_i32") {
            auto v = as_int(data(), dpath);
            if (v < INT32_MIN || v > INT32_MAX)
                fail(dpath, "integer " + std::to_string(v) + " is out of the int32 range");
            return static_cast<std::int32_t>(v);
        }
        if (tag == "0.a_i64") return as_int(data(), dpath);
        if (tag == "0.a_f32") return to_float(as_double(data(), dpath), dpath);
        if (tag == "0.a_f64") return as_double(data(), dpath);
        if (tag == "0.a_str") return as_string(data(), dpath);
        if (tag == "1.a_dtype") return as_string(data(), dpath);
        if (tag == "1.a_place") return std::monostate{};
        if (tag == "1.a_intarray") {
            const auto& d = data();
            if (!d.is_array()) fail(dpath, "expected an array of integers, got " + type_name(d));
            std::vector<std::int64_t> v;
            for (std::size_t i = 0; i < d.size(); ++i)
                v.push_back(as_int(d[i], dpath + "[" + std::to_string(i) + "]"));
            return v;
        }
        if (tag == "0.a_array") {
            const auto& d = data();
            if (!d.is_array()) fail(dpath, "expected an array, got " + type_name(d));
            std::string item_tag;
            std::vector<attr_value> items;
            for (std::size_t i = 0; i < d.size(); ++i) {
                const auto ipath = dpath + "[" + std::to_string(i) + "]";
                const auto& t = as_string(member(d[i], "#", ipath), ipath + ".#");
                if (t == "0.a_array") fail(ipath, "nested attribute arrays are not read");
                if (i == 0) item_tag = t;
                if (t != item_tag) fail(ipath, "attribute array mixes " + item_tag + " and " + t);
                bool k = true;
                items.push_back(read_attr(d[i], ipath, k));
                if (!k) {
                    known = false;
                    return std::monostate{};
                }
            }
            return gather(items, item_tag);
        }
        known = false;
        return std::monostate{};
    }

    static attr_value gather(const std::vector<attr_value>& items, const std::string& tag) {
        auto all = [&]<class T>(T) {
            std::vector<T> v;
            for (auto& x : items) v.push_back(std::get<T>(x));
            return v;
        };
        if (tag.empty() || tag == "0.a_i32") return all(std::int32_t{});
        if (tag == "0.a_i64") return all(std::int64_t{});
        if (tag == "0.a_f32") return all(float{});
        if (tag == "0.a_f64") return all(double{});
        if (tag == "0.a_bool") return all(bool{});
        if (tag == "0.a_str" || tag == "1.a_dtype") return all(std::string{});
        // 1.a_intarray or 1.a_place items: not read.
        return std::monostate{};
    }

    // ---- values --------------------------------------------------------------------

    using scope = std::map<std::int64_t, std::size_t>;

    std::optional<std::size_t> lookup(std::int64_t id) const {
        for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
            if (auto f = it->find(id); f != it->end()) return f->second;
        return std::nullopt;
    }

    std::size_t define(std::int64_t id, value v, const std::string& path) {
        if (id == 0) fail(path, "value id 0 (reserved for an absent input) is defined");
        if (id > 0) {
            auto [it, fresh] = defined_.emplace(id, path);
            if (!fresh)
                fail(path, "value %" + std::to_string(id) + " is defined twice (first at " +
                               it->second + ")");
        } else if (scopes_.back().count(id)) {
            fail(path, "block argument %" + std::to_string(id) + " is defined twice");
        }
        v.def_path = path;
        values_.push_back(std::move(v));
        scopes_.back()[id] = values_.size() - 1;
        return values_.size() - 1;
    }

    value from_type(const type_info& t) {
        value v;
        v.type_tag = t.tag;
        if (t.tensor) {
            v.k = value::kind::tensor;
            v.typed = t.typed;
            v.type = t.type;
            v.shape = t.shape;
        } else if (t.vec) {
            v.k = value::kind::vec;
            for (auto& e : t.elems) {
                values_.push_back(from_type(e));
                v.elems.push_back(values_.size() - 1);
            }
        } else {
            v.k = value::kind::none;
            v.none_why = "it is of type " + t.tag + ", not a tensor";
        }
        return v;
    }

    graph::var_node& var_node(const std::string& name) {
        return m_.graph.vars[static_cast<std::size_t>(m_.graph.find_var(name))];
    }

    std::string fresh_name(std::string want) {
        if (!names_.count(want)) {
            names_.insert(want);
            return want;
        }
        for (int k = 1;; ++k) {
            auto n = want + "@pir" + std::to_string(k);
            if (!names_.count(n)) {
                names_.insert(n);
                return n;
            }
        }
    }

    std::string id_name(std::int64_t id) const {
        auto it = fetch_names_.find(id);
        return it != fetch_names_.end() ? it->second : "%" + std::to_string(id);
    }

    /// Declares the graph variable of value `vi` (named `name`).
    void declare(std::size_t vi, const std::string& name, bool persistable,
                 const std::string& path) {
        auto& v = values_[vi];
        graph::var_node n;
        n.name = fresh_name(name);
        n.type = v.type;
        n.shape = v.shape;
        n.persistable = persistable;
        if (v.k == value::kind::constant && v.constant) n.value = *v.constant;
        try {
            b_.declare(std::move(n));
        } catch (const graph_error& e) {
            fail(path, e.what());
        }
        values_[vi].var = m_.graph.vars.back().name;
    }

    /// The graph variable of value `vi` used as a tensor operand at `path`
    /// (declared on first use for constants and parameters).
    std::string tensor_var(std::size_t vi, std::int64_t id, const std::string& path) {
        auto& v = values_[vi];
        if (!v.var.empty()) return v.var;
        switch (v.k) {
            case value::kind::none:
                unsupported(path, "value %" + std::to_string(id) + " (defined at " + v.def_path +
                                      ") has no tensor: " + v.none_why);
            case value::kind::vec:
                fail(path, "value %" + std::to_string(id) +
                               " is a list (0.combine), the op expects a tensor");
            case value::kind::tensor:
                unsupported(path, "value %" + std::to_string(id) + " (defined at " + v.def_path +
                                      ") is not computed by litegraph");
            default:
                break;
        }
        if (!v.typed)
            unsupported(path, "value %" + std::to_string(id) + " has dtype " + v.type_tag +
                                  ", which litegraph does not support");
        const bool persistable = true;  // a constant or a parameter
        const std::string name = v.k == value::kind::param ? v.param : id_name(id);
        declare(vi, name, persistable, path);
        return values_[vi].var;
    }

    void set_constant(std::size_t vi, tensor c) {
        auto& val = values_[vi];
        val.k = value::kind::constant;
        val.typed = true;
        val.type = c.type();
        val.shape = c.shape();
        val.constant = std::move(c);
    }

    /// The value of a constant operand as integers (a constant tensor, or a
    /// list of constant scalars), or nothing.
    std::optional<std::vector<std::int64_t>> const_ints(std::size_t vi) const {
        if (vi == no_value) return std::nullopt;
        const auto& v = values_[vi];
        if (v.k == value::kind::constant && v.constant) return ints_of(*v.constant);
        if (v.k == value::kind::vec) {
            std::vector<std::int64_t> r;
            for (auto e : v.elems) {
                auto x = const_ints(e);
                if (!x || x->size() != 1) return std::nullopt;
                r.push_back(x->front());
            }
            return r;
        }
        return std::nullopt;
    }
    std::optional<double> const_scalar(std::size_t vi) const {
        if (vi == no_value) return std::nullopt;
        const auto& v = values_[vi];
        if (v.k != value::kind::constant || !v.constant || v.constant->numel() != 1)
            return std::nullopt;
        double r = 0;
        visit_dtype(v.constant->type(), [&]<class T>(T) {
            if constexpr (std::is_arithmetic_v<T>)
                r = static_cast<double>(v.constant->span<T>()[0]);
        });
        return r;
    }
    static std::optional<std::vector<std::int64_t>> ints_of(const tensor& t) {
        std::vector<std::int64_t> r;
        bool ok = true;
        visit_dtype(t.type(), [&]<class T>(T) {
            if constexpr (std::is_integral_v<T>) {
                for (auto x : t.span<T>()) r.push_back(static_cast<std::int64_t>(x));
            } else {
                ok = false;
            }
        });
        if (!ok) return std::nullopt;
        return r;
    }

    model& m_;
    graph::builder b_;
    std::vector<value> values_;
    std::vector<scope> scopes_;
    std::map<std::int64_t, std::string> defined_;  // positive ids -> where
    std::map<std::string, std::size_t> params_;    // name -> value (byte-sorted)
    std::map<std::int64_t, std::string> fetch_names_;
    std::set<std::string> names_;
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
