/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * datatype.c -- PVM datatypes and the predefined reduction ops.
 *
 * Ops have PVM's reduce signature: op(&datatype, x, y, &num, &info)
 * computes x[i] = x[i] op y[i] for i < num and sets info to 0, or to a
 * negative value when the datatype is not supported.  PVM_BYTE is
 * arithmetic on unsigned char (wrapping); PVM_CPLX and PVM_DCPLX are
 * (re, im) pairs: SUM and PROD are complex, MIN and MAX are refused.
 */
#include <pvm3.h>
#include "eco_coll.h"

typedef unsigned char ecoi_byte;

size_t ecoi_type_size(int datatype)
{
    switch (datatype) {
    case PVM_BYTE:   return sizeof(char);
    case PVM_SHORT:  return sizeof(short);
    case PVM_INT:    return sizeof(int);
    case PVM_FLOAT:  return sizeof(float);
    case PVM_CPLX:   return 2 * sizeof(float);
    case PVM_DOUBLE: return sizeof(double);
    case PVM_DCPLX:  return 2 * sizeof(double);
    case PVM_LONG:   return sizeof(long);
    case PVM_USHORT: return sizeof(unsigned short);
    case PVM_UINT:   return sizeof(unsigned int);
    case PVM_ULONG:  return sizeof(unsigned long);
    default:         return 0;
    }
}

/* One loop per real type; EXPR combines a (accumulator) and b (input). */
#define ECOI_REAL_LOOP(T, EXPR)                                   \
    do {                                                          \
        T *a_ = (T *)x;                                           \
        const T *b_ = (const T *)y;                               \
        for (int i_ = 0; i_ < *num; i_++) {                       \
            T a = a_[i_], b = b_[i_];                             \
            a_[i_] = (T)(EXPR);                                   \
        }                                                         \
    } while (0)

/* Dispatch EXPR over every real datatype; complex types go to CPLX. */
#define ECOI_REAL_SWITCH(EXPR, CPLX)                                        \
    switch (*datatype) {                                                    \
    case PVM_BYTE:   ECOI_REAL_LOOP(ecoi_byte, EXPR); break;                \
    case PVM_SHORT:  ECOI_REAL_LOOP(short, EXPR); break;                    \
    case PVM_INT:    ECOI_REAL_LOOP(int, EXPR); break;                      \
    case PVM_FLOAT:  ECOI_REAL_LOOP(float, EXPR); break;                    \
    case PVM_DOUBLE: ECOI_REAL_LOOP(double, EXPR); break;                   \
    case PVM_LONG:   ECOI_REAL_LOOP(long, EXPR); break;                     \
    case PVM_USHORT: ECOI_REAL_LOOP(unsigned short, EXPR); break;           \
    case PVM_UINT:   ECOI_REAL_LOOP(unsigned int, EXPR); break;             \
    case PVM_ULONG:  ECOI_REAL_LOOP(unsigned long, EXPR); break;            \
    case PVM_CPLX:   CPLX(float); break;                                    \
    case PVM_DCPLX:  CPLX(double); break;                                   \
    default:         *info = PvmBadParam; return;                           \
    }                                                                       \
    *info = 0

#define ECOI_CPLX_SUM(T)                                          \
    do {                                                          \
        T *a_ = (T *)x;                                           \
        const T *b_ = (const T *)y;                               \
        for (int i_ = 0; i_ < 2 * *num; i_++)                     \
            a_[i_] += b_[i_];                                     \
    } while (0)

#define ECOI_CPLX_PROD(T)                                         \
    do {                                                          \
        T *a_ = (T *)x;                                           \
        const T *b_ = (const T *)y;                               \
        for (int i_ = 0; i_ < *num; i_++) {                       \
            T re = a_[2 * i_] * b_[2 * i_] - a_[2 * i_ + 1] * b_[2 * i_ + 1]; \
            T im = a_[2 * i_] * b_[2 * i_ + 1] + a_[2 * i_ + 1] * b_[2 * i_]; \
            a_[2 * i_] = re;                                      \
            a_[2 * i_ + 1] = im;                                  \
        }                                                         \
    } while (0)

#define ECOI_CPLX_REFUSE(T)                                       \
    do {                                                          \
        *info = PvmBadParam;                                      \
        return;                                                   \
    } while (0)

static void ecoi_sum(int *datatype, void *x, void *y, int *num, int *info)
{
    ECOI_REAL_SWITCH(a + b, ECOI_CPLX_SUM);
}

static void ecoi_prod(int *datatype, void *x, void *y, int *num, int *info)
{
    ECOI_REAL_SWITCH(a * b, ECOI_CPLX_PROD);
}

static void ecoi_min(int *datatype, void *x, void *y, int *num, int *info)
{
    ECOI_REAL_SWITCH(b < a ? b : a, ECOI_CPLX_REFUSE);
}

static void ecoi_max(int *datatype, void *x, void *y, int *num, int *info)
{
    ECOI_REAL_SWITCH(b > a ? b : a, ECOI_CPLX_REFUSE);
}

const eco_op ECO_SUM = ecoi_sum;
const eco_op ECO_PROD = ecoi_prod;
const eco_op ECO_MIN = ecoi_min;
const eco_op ECO_MAX = ecoi_max;

int ecoi_op_id(eco_op op)
{
    /* Addresses differ between processes: compare the built-ins by name,
     * any other function only as "the caller's own". */
    return !op ? 0 : op == ecoi_sum ? 1 : op == ecoi_prod ? 2
         : op == ecoi_min ? 3 : op == ecoi_max ? 4 : ECOI_OP_USER;
}

int ecoi_op_check(eco_op op, int datatype)
{
    if (!op)
        return ECO_ERR_ARG;
    if (ecoi_type_size(datatype) == 0)
        return ECO_ERR_DATATYPE;
    if ((op == ecoi_min || op == ecoi_max) &&
        (datatype == PVM_CPLX || datatype == PVM_DCPLX))
        return ECO_ERR_DATATYPE;
    return ECO_OK;
}

void (*ecoi_combine_hook)(size_t bytes);

int ecoi_op_apply(eco_op op, int datatype, void *acc, const void *in, size_t count)
{
    int dt = datatype, num = (int)count, info = 0;

    if (count == 0)
        return ECO_OK;
    if (ecoi_combine_hook)
        ecoi_combine_hook(count * ecoi_type_size(datatype));
    op(&dt, acc, (void *)in, &num, &info);
    return info < 0 ? ECO_ERR_DATATYPE : ECO_OK;
}
