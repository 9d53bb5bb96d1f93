// Rows of a phase-table matrix (sinusoidal, RoPE): value = sin(2 pi frac(p step + offset)).
layout(local_size_x = 64, local_size_y = 4) in;

// Per column: step (low, high word), offset (low, high word), from columnPhases().
layout(std430, binding = 0) readonly buffer Columns { uvec4 columns[]; };
layout(std430, binding = 1) writeonly buffer Values { float values[]; };

uniform uint firstRow;   // matrix row of this dispatch's first row
uniform uint rowCount;   // rows in this dispatch
uniform uint dims;
uniform uint outRow;     // buffer row of this dispatch's first row

// Each invocation walks ROWS_PER_INVOCATION rows of one column (defined by GpuBackend): one
// 64-bit product, then exact additions, as the CPU backend does; writes stay coalesced along x.

void main()
{
    uint j = gl_GlobalInvocationID.x;
    uint r0 = gl_GlobalInvocationID.y * ROWS_PER_INVOCATION;
    if (j >= dims || r0 >= rowCount)
        return;
    uvec4 c = columns[j];
    uvec2 phase = add64(mul64(c.xy, firstRow + r0), c.zw);
    uint end = min(r0 + ROWS_PER_INVOCATION, rowCount);
    for (uint r = r0; r < end; ++r) {
        values[(outRow + r) * dims + j] = sinOfPhase(phase);
        phase = add64(phase, c.xy);
    }
}
