// The PIR ops the loader resolves itself: program inputs and outputs
// (`1.data`, `1.fetch`), constants folded at load (`1.full`,
// `1.full_int_array`, `1.assign_value`), lists (`0.combine`, `0.split`),
// aliases (`1.assign`) and a parameter reshaped by a constant shape.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "litegraph/loader/paddle/pir/program.hpp"

namespace litegraph::paddle::pir {

namespace detail {

/// The ops resolved at load.
class resolver : public program_reader {
protected:
    using program_reader::program_reader;

    /// Resolves op `v` (PIR name `n`) when it is one of detail::resolved_at_load;
    /// false when it is not.
    bool resolve_at_load(op_view& v, const std::string& n) {
        // Program inputs and outputs.
        if (n == "1.data") return read_data(v), true;
        if (n == "1.fetch") return read_fetch(v), true;
        // Constants and lists, resolved at load.
        if (n == "1.full") return read_full(v), true;
        if (n == "1.full_int_array") return read_full_int_array(v), true;
        if (n == "0.combine") return read_combine(v), true;
        if (n == "0.split") return read_split(v), true;
        if (n == "1.assign") {
            if (in_val(v, 0) == op_view::npos) fail(in_path(v, 0), "1.assign without an input");
            alias(v, 0, in_val(v, 0));
            return note(v.name, "", ""), true;
        }
        return false;
    }

    void read_combine(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "0.combine has one result");
        auto& out = values_[v.out_vals[0]];
        out.k = value::kind::vec;
        out.elems.clear();
        for (std::size_t k = 0; k < v.in_vals.size(); ++k) {
            if (v.in_vals[k] == op_view::npos) fail(in_path(v, k), "an absent list element");
            out.elems.push_back(v.in_vals[k]);
        }
        note(v.name, "", "");
    }

    void read_split(op_view& v) {
        const auto vi = in_val(v, 0);
        if (vi == op_view::npos || values_[vi].k != value::kind::vec)
            fail(in_path(v, 0), "0.split takes a list");
        const auto elems = values_[vi].elems;
        if (elems.size() != v.out_vals.size())
            fail(v.path + ".O", "0.split of a list of " + std::to_string(elems.size()) + " into " +
                                    std::to_string(v.out_vals.size()) + " values");
        for (std::size_t k = 0; k < elems.size(); ++k) alias(v, k, elems[k]);
        note(v.name, "", "");
    }

    void read_data(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.data has one result");
        auto it = v.attrs.find("name");
        if (it == v.attrs.end() || !std::holds_alternative<std::string>(it->second) ||
            std::get<std::string>(it->second).empty())
            fail(v.path + ".A", "1.data without a name");
        const auto& name = std::get<std::string>(it->second);
        const auto vi = v.out_vals[0];
        if (values_[vi].k != value::kind::tensor)
            fail(v.path + ".O[0]", "input '" + name + "' is not a dense tensor");
        if (!values_[vi].typed)
            unsupported(v.path, "input '" + name + "' has dtype " + values_[vi].type_tag +
                                    ", which litegraph does not support");
        if (names_.count(name)) fail(v.path + ".A", "input name '" + name + "' is used twice");
        declare(vi, name, false, v.path);
        b_.feed(values_[vi].var, feed_col_++);
        note(v.name, "", "");
    }

    void read_fetch(op_view& v) {
        const auto vi = in_val(v, 0);
        if (vi == op_view::npos || v.in_vals.size() != 1)
            fail(v.path + ".I", "1.fetch takes one value");
        const auto col = attr<std::int64_t>(v, "col", -1);
        if (col < 0 || col > INT32_MAX) fail(v.path + ".A", "1.fetch without a valid 'col'");
        const auto var = tensor_var(vi, v.in[0], in_path(v, 0));
        b_.fetch(var, static_cast<int>(col));
        // The fetch's own result is the same value.
        if (!v.out_vals.empty()) alias(v, 0, vi);
        note(v.name, "", "");
    }

    void read_full(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.full has one result");
        const auto shape = attr<std::vector<std::int64_t>>(v, "shape", {});
        const auto fill = attr<double>(v, "value", 0.0);
        const auto dt = attr<std::string>(v, "dtype", "float32");
        auto t = dtype_of_name(dt);
        if (!t || *t == dtype::f16)
            return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph folds");
        std::int64_t n = 1;
        for (auto d : shape) {
            if (d < 0) fail(v.path + ".A", "1.full of shape " + to_string(shape));
            if (d > max_folded_full)
                n = max_folded_full + 1;
            else
                n *= d;
            if (n > max_folded_full) n = max_folded_full + 1;
        }
        if (n > max_folded_full) {
            // Large: the runtime fills it (sized under its caps).
            attr_map a;
            a.set("shape", shape);
            a.set("value", fill);
            a.set("dtype", std::int32_t{to_paddle_type(*t)});
            values_[v.out_vals[0]].type = *t;
            values_[v.out_vals[0]].typed = true;
            values_[v.out_vals[0]].shape = shape;
            return emit(v, std::string(ops::fill_constant::paddle_types[0]), {}, {"Out"},
                        std::move(a));
        }
        set_constant(v.out_vals[0],
                     folded_constant(v, *t, shape, dt, [&](std::size_t) { return fill; }));
        note(v.name, "", "");
    }

    /// Whether `x` converts to integer type T without undefined behaviour: within
    /// [min, max] (NaN is not); for a 64-bit T, max as a double rounds up to a
    /// value T does not hold, so it is excluded.
    template <class T>
    static bool fits_integer(double x) {
        const double lo = static_cast<double>(std::numeric_limits<T>::min());
        const double hi = static_cast<double>(std::numeric_limits<T>::max());
        return x >= lo && (sizeof(T) >= 8 ? x < hi : x <= hi);
    }

    /// A constant of dtype `t` (named `dt` in the file) and `shape`, element i
    /// `value(i)`; a value the dtype cannot hold fails naming it.
    template <class F>
    tensor folded_constant(const op_view& v, dtype t, const shape_t& shape, const std::string& dt,
                           F value) const {
        tensor c(t, shape);
        std::optional<double> bad;
        visit_dtype(t, [&]<class T>(T) {
            auto o = c.span<T>();
            for (std::size_t i = 0; i < o.size() && !bad; ++i) {
                const double x = value(i);
                if constexpr (std::is_same_v<T, bool>) {
                    o[i] = x != 0.0;
                } else if constexpr (std::is_floating_point_v<T>) {
                    o[i] = static_cast<T>(x);
                } else if constexpr (std::is_integral_v<T>) {
                    if (fits_integer<T>(x))
                        o[i] = static_cast<T>(x);
                    else
                        bad = x;
                } else {
                    bad = x;
                }
            }
        });
        if (bad) fail(v.path + ".A", "value " + std::to_string(*bad) + " does not fit " + dt);
        return c;
    }

    /// `1.assign_value(_)`: a constant of `shape` and `dtype` holding `values`
    /// (its operand, in the in-place form, is the value it overwrites: unread).
    void read_assign_value(op_view& v, const std::string& type) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.assign_value has one result");
        const auto shape = attr<std::vector<std::int64_t>>(v, "shape", {});
        const auto vals = attr<std::vector<double>>(v, "values", {});
        const auto dt = attr<std::string>(v, "dtype", "float32");
        auto t = dtype_of_name(dt);
        if (!t || *t == dtype::f16)
            return keep_untranslated(v, "dtype '" + dt + "' is not one litegraph folds");
        std::int64_t n = 1;
        for (auto d : shape) {
            if (d < 0 || d > max_folded_full)
                fail(v.path + ".A", "1.assign_value of shape " + to_string(shape));
            n *= d;
            if (n > max_folded_full)
                fail(v.path + ".A", "1.assign_value of shape " + to_string(shape));
        }
        if (n != static_cast<std::int64_t>(vals.size()))
            fail(v.path + ".A", "1.assign_value of shape " + to_string(shape) + " has " +
                                    std::to_string(vals.size()) + " values");
        set_constant(v.out_vals[0],
                     folded_constant(v, *t, shape, dt, [&](std::size_t i) { return vals[i]; }));
        note(v.name, type, "");  // what the op table says, run at load
    }

    void read_full_int_array(op_view& v) {
        if (v.out_vals.size() != 1) fail(v.path + ".O", "1.full_int_array has one result");
        const auto vals = attr<std::vector<std::int64_t>>(v, "value", {});
        const auto dt = attr<std::string>(v, "dtype", "int64");
        auto t = dtype_of_name(dt);
        tensor c;
        if (t == dtype::i64) {
            c = tensor::from<std::int64_t>({static_cast<std::int64_t>(vals.size())}, vals);
        } else if (t == dtype::i32) {
            std::vector<std::int32_t> v32;
            for (auto x : vals) {
                if (x < INT32_MIN || x > INT32_MAX)
                    fail(v.path + ".A", "value " + std::to_string(x) + " does not fit int32");
                v32.push_back(static_cast<std::int32_t>(x));
            }
            c = tensor::from<std::int32_t>({static_cast<std::int64_t>(v32.size())}, v32);
        } else {
            return keep_untranslated(v, "dtype '" + dt + "' is neither int32 nor int64");
        }
        set_constant(v.out_vals[0], std::move(c));
        note(v.name, "", "");
    }

    /// Paddle's reshape of fully known dims (0 copies a dim, one -1 is inferred).
    static std::optional<shape_t> reshaped(const shape_t& from,
                                           const std::vector<std::int64_t>& to) {
        shape_t r;
        std::int64_t known = 1, total = 1;
        int infer = -1;
        for (auto d : from) {
            if (d < 0) return std::nullopt;
            total *= d;
        }
        for (std::size_t i = 0; i < to.size(); ++i) {
            auto d = to[i];
            if (d == 0) {
                if (i >= from.size()) return std::nullopt;
                d = from[i];
            }
            if (d == -1) {
                if (infer >= 0) return std::nullopt;
                infer = static_cast<int>(i);
            } else if (d < 0) {
                return std::nullopt;
            } else {
                if (d > 0 && known > total / d + 1) return std::nullopt;
                known *= d;
            }
            r.push_back(d);
        }
        if (infer >= 0) {
            if (known == 0 || total % known != 0) return std::nullopt;
            r[static_cast<std::size_t>(infer)] = total / known;
        } else if (known != total) {
            return std::nullopt;
        }
        return r;
    }

    void read_reshape(op_view& v, const std::string& type) {
        const auto x = in_val(v, 0);
        auto shape = const_ints(in_val(v, 1));
        if (x != op_view::npos && shape && !v.out_vals.empty() &&
            (values_[x].k == value::kind::param || values_[x].k == value::kind::derived)) {
            // A parameter reshaped by a constant shape is a parameter of that shape
            // (the conv biases: reshape [C] to [1, C, 1, 1], then add).
            if (auto s = reshaped(values_[x].shape, *shape)) {
                auto& out = values_[v.out_vals[0]];
                out.k = value::kind::derived;
                out.param = values_[x].param;
                out.typed = values_[x].typed;
                out.type = values_[x].type;
                out.type_tag = values_[x].type_tag;
                out.shape = *s;
                for (std::size_t k = 1; k < v.out_vals.size(); ++k) {
                    values_[v.out_vals[k]].k = value::kind::none;
                    values_[v.out_vals[k]].none_why = "reshape's xshape is not computed";
                }
                return note(v.name, type, "");
            }
        }
        attr_map a;
        std::vector<slot_spec> ins{in_slot(v, "X", 0)};
        if (shape)
            a.set("shape", *shape);
        else if (in_val(v, 1) != op_view::npos)
            ins.push_back(values_[in_val(v, 1)].k == value::kind::vec
                              ? list_slot(v, "ShapeTensor", 1)
                              : in_slot(v, "Shape", 1));
        emit(v, type, ins, {"Out"}, std::move(a));
    }
    int feed_col_ = 0;
};

}  // namespace detail

}  // namespace litegraph::paddle::pir
