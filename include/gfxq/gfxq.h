#pragma once
//! \file gfxq.h
//! Umbrella header: everything a host program needs.

#include "gfxq/arrow.h"
#include "gfxq/capabilities.h"
#include "gfxq/column_file.h"
#include "gfxq/cpu.h"
#include "gfxq/database.h"
#include "gfxq/engine.h"
#include "gfxq/error.h"
#include "gfxq/query.h"
#include "gfxq/result.h"
#include "gfxq/sql.h"
#include "gfxq/table.h"
