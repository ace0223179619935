/* empty: tracepoints are no-ops, see ../shim/kshim.h */
