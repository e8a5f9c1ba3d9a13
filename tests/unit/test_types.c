/* Unit tests for the shared vocabulary: type names, aliases and Quadrants promotion. */
#include "support/types.h"
#include <criterion/criterion.h>

Test(types, names_and_aliases) {
    cr_assert_eq(qt_from_name("i32"), QT_I32);
    cr_assert_eq(qt_from_name("float32"), QT_F32);
    cr_assert_eq(qt_from_name("uint64"), QT_U64);
    cr_assert_eq(qt_from_name("nope"), QT_VOID);
    cr_assert_str_eq(qt_name(QT_BF16), "bf16");
}

Test(types, promotion_follows_quadrants) {
    cr_assert_eq(qt_promote(QT_I32, QT_F32), QT_F32);  /* real beats integral */
    cr_assert_eq(qt_promote(QT_F16, QT_I64), QT_F16);
    cr_assert_eq(qt_promote(QT_I32, QT_I64), QT_I64);  /* wider beats narrower */
    cr_assert_eq(qt_promote(QT_I32, QT_U32), QT_U32);  /* unsigned beats signed at equal width */
    cr_assert_eq(qt_promote(QT_U32, QT_I32), QT_U32);
    cr_assert_eq(qt_promote(QT_F16, QT_BF16), QT_BF16); /* tie: right-hand side wins */
    cr_assert_eq(qt_promote(QT_BF16, QT_F16), QT_F16);
    cr_assert_eq(qt_promote(QT_U8, QT_I16), QT_I16);
}
