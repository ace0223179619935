// StateIo: the byte codec behind Engine::save_state/restore_state and
// ControlLoop's (engine.h, loop.h). One visit function per structure names
// every field once; StateIo either measures, writes or reads them, so save
// and restore cannot disagree on the layout. Fixed size: every vector the
// visit walks was sized by compile() (or the loop's constructor) and keeps
// its size; an optional is a flag byte and its value (zero when absent).
// Sample rings (the filters' histories) keep only their live samples, so
// the size varies; measure_max() sizes them full, for a buffer that always
// fits.
// Reading validates as it goes: a value that would index past a table, a
// non-finite double or a flag byte other than 0/1 marks the input bad and
// is not stored.
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>

#include "coolhand/policy/engine.h"
#include "coolhand/policy/units.h"

namespace coolhand::policy::detail {

class StateIo {
 public:
  enum class Mode : std::uint8_t { measure, measure_max, save, load };

  static StateIo measure() { return StateIo(Mode::measure, {}, {}); }
  static StateIo measure_max() { return StateIo(Mode::measure_max, {}, {}); }
  static StateIo save(std::span<std::byte> out) { return StateIo(Mode::save, out, {}); }
  static StateIo load(std::span<const std::byte> in) { return StateIo(Mode::load, {}, in); }

  [[nodiscard]] Mode mode() const { return mode_; }
  [[nodiscard]] bool loading() const { return mode_ == Mode::load; }
  [[nodiscard]] bool measuring_max() const { return mode_ == Mode::measure_max; }
  // Bytes measured, written or read so far.
  [[nodiscard]] std::size_t size() const { return pos_; }
  // Nothing ran past the buffer and every value read was valid.
  [[nodiscard]] bool ok() const { return ok_; }
  void fail() { ok_ = false; }

  // A scalar (integers, bool, enums, double, durations, MilliC) or a small
  // struct with a visit_fields(StateIo&, S&) overload.
  template <typename T>
  void operator()(T& v) {
    using U = std::remove_const_t<T>;
    if constexpr (std::is_same_v<U, bool>) {
      std::uint8_t b = v ? 1 : 0;
      bytes(b);
      if constexpr (!std::is_const_v<T>) {
        if (loading() && ok_) {
          if (b > 1)
            fail();
          else
            v = b != 0;
        }
      }
    } else if constexpr (std::is_same_v<U, MilliC>) {
      std::int32_t mc = v.mc();
      bytes(mc);
      if constexpr (!std::is_const_v<T>) {
        if (loading() && ok_) v = MilliC(mc);
      }
    } else if constexpr (std::is_same_v<U, std::chrono::milliseconds>) {
      std::int64_t ms = v.count();
      bytes(ms);
      if constexpr (!std::is_const_v<T>) {
        if (loading() && ok_) v = std::chrono::milliseconds(ms);
      }
    } else if constexpr (std::is_class_v<U>) {
      visit_fields(*this, v);  // a small struct: its overload, found by ADL
    } else {
      static_assert(std::is_arithmetic_v<U> || std::is_enum_v<U>, "not a scalar");
      U x = v;
      bytes(x);
      if constexpr (std::is_floating_point_v<U>) {
        if (loading() && !std::isfinite(x)) fail();
      }
      if constexpr (!std::is_const_v<T>) {
        if (loading() && ok_) v = x;
      }
    }
  }

  template <typename T>
  void operator()(std::optional<T>& v) {
    bool has = v.has_value();
    (*this)(has);
    T x = v.value_or(T{});
    (*this)(x);
    if (loading() && ok_) v = has ? std::optional<T>(x) : std::nullopt;
  }
  template <typename T>
  void operator()(const std::optional<T>& v) {
    bool has = v.has_value();
    (*this)(has);
    T x = v.value_or(T{});
    (*this)(x);
  }

  // An index that must stay below `limit` (limit itself allowed with
  // `inclusive`); a value out of range is not stored.
  template <typename T>
  void index(T& v, std::size_t limit, bool inclusive = false) {
    T x = v;
    (*this)(x);
    if (!loading()) return;
    if (inclusive ? static_cast<std::size_t>(x) > limit : static_cast<std::size_t>(x) >= limit) {
      fail();
    } else if (ok_) {
      v = x;
    }
  }
  template <typename T>
  void index(std::optional<T>& v, std::size_t limit) {
    std::optional<T> x = v;
    (*this)(x);
    if (!loading()) return;
    if (x && static_cast<std::size_t>(*x) >= limit) {
      fail();
    } else if (ok_) {
      v = x;
    }
  }
  template <typename T>
  void index(const T& v, std::size_t /*limit*/, bool /*inclusive*/ = false) {
    (*this)(v);
  }

 private:
  StateIo(Mode m, std::span<std::byte> out, std::span<const std::byte> in)
      : mode_(m), out_(out), in_(in) {}

  template <typename U>
  void bytes(U& x) {
    const std::size_t n = sizeof(U);
    if (mode_ == Mode::save) {
      if (pos_ + n > out_.size()) {
        ok_ = false;
      } else {
        std::memcpy(out_.data() + pos_, &x, n);
      }
    } else if (mode_ == Mode::load) {
      if (pos_ + n > in_.size()) {
        ok_ = false;
      } else {
        std::memcpy(&x, in_.data() + pos_, n);
      }
    }
    pos_ += n;
  }

  Mode mode_;
  std::span<std::byte> out_;
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace coolhand::policy::detail

namespace coolhand::policy {

// Found by StateIo through ADL.
template <typename W>
requires std::is_same_v<std::remove_const_t<W>, Window>
void visit_fields(detail::StateIo& io, W& w) {
  io(w.low);
  io(w.high);
}

}  // namespace coolhand::policy
