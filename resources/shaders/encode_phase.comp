// Rows of a phase-table matrix (sinusoidal, RoPE): value = sin(2 pi frac(p step + offset)).
layout(local_size_x = 64, local_size_y = 4) in;

// Per column: step (low, high word), offset (low, high word), from columnPhases().
layout(std430, binding = 0) readonly buffer Columns { uvec4 columns[]; };
layout(std430, binding = 1) writeonly buffer Values { float values[]; };

uniform uint firstRow;   // matrix row of this dispatch's first row
uniform uint rowCount;   // rows in this dispatch
uniform uint dims;
uniform uint outRow;     // buffer row of this dispatch's first row

void main()
{
    uint j = gl_GlobalInvocationID.x;
    uint r = gl_GlobalInvocationID.y;
    if (j >= dims || r >= rowCount)
        return;
    uvec4 c = columns[j];
    uvec2 phase = add64(mul64(c.xy, firstRow + r), c.zw);
    values[(outRow + r) * dims + j] = sinOfPhase(phase);
}
