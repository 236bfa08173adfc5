// Tensors: `tensor` owns aligned bytes; `tensor_ref` is what ops see (a typed
// view into an arena, a weight or an owned buffer).
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>

#include "litegraph/core/dtype.hpp"
#include "litegraph/core/error.hpp"
#include "litegraph/core/lod.hpp"
#include "litegraph/core/shape.hpp"

namespace litegraph {

inline constexpr std::size_t tensor_alignment = 64;

/// A typed, shaped, non-owning view.  `data == nullptr` during shape inference
/// means "value not known yet"; a known value (weights, folded shapes) is set.
/// `lod` holds the sequence offsets of a LoD tensor (core/lod.hpp), empty for
/// a plain one.
struct tensor_ref {
    std::string_view name;
    dtype type = dtype::f32;
    shape_t shape;
    std::byte* data = nullptr;
    lod_t lod{};

    std::int64_t numel() const { return litegraph::numel(shape); }
    std::uint64_t bytes() const { return checked_bytes(numel(), size_of(type)); }
    bool has_data() const noexcept { return data != nullptr; }

    /// Typed pointer; throws when T is not the tensor's dtype.
    template <class T>
    T* as() const {
        if (dtype_v<T> != type)
            LITEGRAPH_THROW(shape_error("tensor '" + std::string(name) + "' is " +
                                        std::string(name_of(type)) + ", expected " +
                                        std::string(name_of(dtype_v<T>))));
        return reinterpret_cast<T*>(data);
    }
    template <class T>
    std::span<T> span() const {
        return {as<T>(), static_cast<std::size_t>(numel())};
    }
};

/// An owning tensor with 64-byte aligned storage, and the LoD of a sequence
/// tensor (empty for a plain one; `set_lod` checks it against dim 0).
class tensor {
public:
    tensor() = default;
    tensor(dtype t, shape_t s) : type_(t), shape_(std::move(s)) {
        bytes_ = checked_bytes(litegraph::numel(shape_), size_of(type_));
        if (bytes_) {
            data_.reset(static_cast<std::byte*>(
                ::operator new (bytes_, std::align_val_t{tensor_alignment})));
            std::memset(data_.get(), 0, bytes_);
        }
    }
    tensor(const tensor& o) : tensor(o.type_, o.shape_) {
        if (bytes_) std::memcpy(data_.get(), o.data_.get(), bytes_);
        lod_ = o.lod_;
    }
    tensor& operator=(const tensor& o) {
        if (this != &o) *this = tensor(o);
        return *this;
    }
    tensor(tensor&&) noexcept = default;
    tensor& operator=(tensor&&) noexcept = default;

    template <class T>
    static tensor from(shape_t s, std::span<const T> values) {
        tensor t(dtype_v<T>, std::move(s));
        if (values.size() != static_cast<std::size_t>(t.numel()))
            LITEGRAPH_THROW(shape_error("tensor::from: " + std::to_string(values.size()) +
                                        " values for shape " + to_string(t.shape())));
        if (!values.empty()) std::memcpy(t.data(), values.data(), t.bytes());
        return t;
    }

    dtype type() const noexcept { return type_; }
    const lod_t& lod() const noexcept { return lod_; }
    /// Sets the LoD; throws a shape_error unless it fits dim 0 (core/lod.hpp).
    void set_lod(lod_t lod) {
        if (!lod.empty()) {
            if (shape_.empty())
                LITEGRAPH_THROW(shape_error("a LoD needs a tensor of rank 1 or more"));
            check_lod(lod, shape_[0], "tensor LoD");
        }
        lod_ = std::move(lod);
    }
    const shape_t& shape() const noexcept { return shape_; }
    std::int64_t numel() const { return litegraph::numel(shape_); }
    std::uint64_t bytes() const noexcept { return bytes_; }
    std::byte* data() noexcept { return data_.get(); }
    const std::byte* data() const noexcept { return data_.get(); }

    template <class T>
    std::span<T> span() {
        return ref().span<T>();
    }
    template <class T>
    std::span<const T> span() const {
        auto s = ref().span<T>();
        return {s.data(), s.size()};
    }

    tensor_ref ref(std::string_view name = {}) const {
        return tensor_ref{name, type_, shape_, const_cast<std::byte*>(data_.get()), lod_};
    }

private:
    struct aligned_delete {
        void operator()(std::byte* p) const noexcept {
            ::operator delete (p, std::align_val_t{tensor_alignment});
        }
    };
    dtype type_ = dtype::f32;
    shape_t shape_;
    std::uint64_t bytes_ = 0;
    std::unique_ptr<std::byte[], aligned_delete> data_;
    lod_t lod_;
};

}  // namespace litegraph
