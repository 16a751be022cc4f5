// SPDX-License-Identifier: GPL-2.0
/*
 * fsgate's trace events (trace.h), made here and nowhere else: the one
 * file that defines CREATE_TRACE_POINTS. The files that fire them
 * include trace.h without it.
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
