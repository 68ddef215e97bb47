/* records_undef.h - ends one expansion of the record catalogue
 * (records.def): undefines RECORD and the field macros an includer defined,
 * so that the catalogue can be expanded again.  No include guard: it is
 * meant to be included after every expansion. */
#undef RECORD
#undef F_U16
#undef F_U32
#undef F_U64
#undef F_U64_OPT
#undef F_STR
#undef F_STRN
#undef F_FRAMES
#undef F_STR_OPT
#undef F_FRAMES_OPT
#undef F_U32S_OPT
#undef F_BYTES
#undef F_NONE
#undef R_STR
#undef R_U32
