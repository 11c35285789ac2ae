#pragma once
// Appending one column's cells to another (concatenating tables' columns: partial results of several
// devices, the two sides of a UNION ALL), values and NULL flags together.

#include "gfxq/table.h"

namespace gfxq {

//! Appends the cells of `part` to `out`: its values (the same storage type; Error(Internal) naming
//! both columns otherwise) and its NULL flags (out gets flags when either has them; the side
//! without flags counts as no NULLs). STRING codes are appended as they are: `part` must use out's
//! dictionary (re-encode it first when it has another).
void append_column(Column& out, const Column& part);

}  // namespace gfxq
