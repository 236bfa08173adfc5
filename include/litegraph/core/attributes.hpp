// Op attributes as Paddle stores them, with typed, checked access.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "litegraph/core/error.hpp"

namespace litegraph {

/// One attribute value.  Integer widths are kept as stored; `attr_map::get`
/// converts between int/long and float/double where that loses nothing.
using attr_value =
    std::variant<std::monostate, std::int32_t, float, std::string, std::vector<std::int32_t>,
                 std::vector<float>, std::vector<std::string>, bool, std::vector<bool>,
                 std::int64_t, std::vector<std::int64_t>, double, std::vector<double>>;

class attr_map {
public:
    void set(std::string name, attr_value v) { values_[std::move(name)] = std::move(v); }
    bool has(std::string_view name) const { return values_.find(name) != values_.end(); }
    const std::map<std::string, attr_value, std::less<>>& all() const noexcept { return values_; }

    /// The attribute as T (int, int64_t, float, double, bool, std::string,
    /// std::vector<int>, std::vector<int64_t>, std::vector<float>, ...), or
    /// `fallback` when absent.  A present attribute of an unconvertible type throws.
    template <class T>
    T get(std::string_view name, T fallback) const {
        auto it = values_.find(name);
        if (it == values_.end() || std::holds_alternative<std::monostate>(it->second))
            return fallback;
        return convert<T>(name, it->second);
    }
    /// The attribute as T; throws naming it when absent.
    template <class T>
    T require(std::string_view name) const {
        auto it = values_.find(name);
        if (it == values_.end())
            LITEGRAPH_THROW(unsupported_error("missing attribute '" + std::string(name) + "'"));
        return convert<T>(name, it->second);
    }

private:
    template <class T>
    static T convert(std::string_view name, const attr_value& v) {
        T out{};
        bool ok = std::visit(
            [&](const auto& x) -> bool {
                using X = std::decay_t<decltype(x)>;
                if constexpr (std::is_same_v<X, T>) {
                    out = x;
                    return true;
                } else if constexpr (std::is_arithmetic_v<T> && std::is_arithmetic_v<X>) {
                    if (!fits<T>(x)) return false;
                    out = static_cast<T>(x);
                    return true;
                } else if constexpr (is_vector<T>::value && is_vector<X>::value) {
                    // A call with the dependent `x`: clang checks `out` (of the
                    // enclosing T) even in a branch discarded for this X.
                    return convert_vector(out, x);
                } else {
                    return false;
                }
            },
            v);
        if (!ok)
            LITEGRAPH_THROW(
                unsupported_error("attribute '" + std::string(name) +
                                  "' has an unexpected type (or a value out of range)"));
        return out;
    }
    template <class TV, class XV>
    static bool convert_vector(TV& out, const XV& x) {
        using TE = typename TV::value_type;
        using XE = typename XV::value_type;
        if constexpr (std::is_arithmetic_v<TE> && std::is_arithmetic_v<XE>) {
            out.clear();
            for (auto e : x) {
                if (!fits<TE>(e)) return false;
                out.push_back(static_cast<TE>(e));
            }
            return true;
        } else {
            return false;
        }
    }
    /// Whether floating `x` converts to T without undefined behaviour (a NaN or
    /// a value out of T's range does not: an error, not a garbage attribute).
    template <class T, class X>
    static bool fits(X x) {
        if constexpr (std::is_floating_point_v<X> && std::is_integral_v<T> &&
                      !std::is_same_v<T, bool>) {
            constexpr X hi = static_cast<X>(std::numeric_limits<T>::max());
            if constexpr (std::is_unsigned_v<T>) return x > X(-1) && x < hi + X(1);
            return x > -hi - X(1) && x < hi + X(1);
        } else if constexpr (std::is_floating_point_v<X> && std::is_same_v<T, float> &&
                             !std::is_same_v<X, float>) {
            return !(x > std::numeric_limits<float>::max() ||
                     x < -std::numeric_limits<float>::max());
        } else {
            return true;
        }
    }
    template <class T>
    struct is_vector : std::false_type {};
    template <class E, class A>
    struct is_vector<std::vector<E, A>> : std::true_type {};

    std::map<std::string, attr_value, std::less<>> values_;
};

}  // namespace litegraph
