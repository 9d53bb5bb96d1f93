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
    uint r = gl_GlobalInvocationID.y;
    if (j >= dims || r >= rowCount)
        return;
    values[(outRow + r) * dims + j] = learnedValue(mix32(firstRow + r + seedKey), j);
}
