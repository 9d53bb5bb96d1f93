// Rows of the learned ("random") matrix: Keras' uniform init from the counter-based hash.
layout(local_size_x = 64, local_size_y = 4) in;

layout(std430, binding = 1) writeonly buffer Values { float values[]; };

uniform uint firstRow;
uniform uint rowCount;
uniform uint dims;
uniform uint outRow;
uniform uint seedKey;

void main()
{
    uint j = gl_GlobalInvocationID.x;
    uint r0 = gl_GlobalInvocationID.y * ROWS_PER_INVOCATION;
    if (j >= dims || r0 >= rowCount)
        return;
    uint end = min(r0 + ROWS_PER_INVOCATION, rowCount);
    for (uint r = r0; r < end; ++r)
        values[(outRow + r) * dims + j] = learnedValue(mix32(firstRow + r + seedKey), j);
}
