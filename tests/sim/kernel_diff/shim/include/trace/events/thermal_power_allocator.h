/* empty: tracepoints are no-ops, see kshim.h */
