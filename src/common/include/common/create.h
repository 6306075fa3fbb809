#pragma once
// try_create: the body of every non-throwing create() factory.
//
// Keyed objects validate their set-up in their constructors and throw on misuse, which suits
// C++ callers that build them once. Engines and C callers need the same construction without
// exceptions escaping: create() runs the constructor and turns what it throws into an Error —
// misuse (std::logic_error: wrong sizes, options that contradict each other, a backend this
// CPU lacks) into kInvalidArgument, allocation failure into kOutOfMemory, anything else into
// kUnsupported. One constructor keeps the checks in one place.
#include <new>
#include <stdexcept>
#include <utility>

#include "wireseal/result.h"

namespace wireseal::detail {

template <class T, class... Args>
Result<T> try_create(Args&&... args) noexcept {
  try {
    return Result<T>(T(std::forward<Args>(args)...));
  } catch (const std::bad_alloc&) {
    return Error::kOutOfMemory;
  } catch (const std::logic_error&) {
    return Error::kInvalidArgument;
  } catch (...) {
    return Error::kUnsupported;
  }
}

}  // namespace wireseal::detail
