// Viewport of the learned matrix: each pixel row averages the matrix rows its SamplingPlan
// names (every covered row, or an even subset past the budget), each pixel column its columns.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer SampleRows { uint sampleRows[]; };
layout(std430, binding = 1) readonly buffer SampleWeights { float sampleWeights[]; };
layout(std430, binding = 2) readonly buffer SampleBegin { uint sampleBegin[]; };
layout(std430, binding = 4) readonly buffer Columns { Span columns[]; };  // window-relative
layout(std430, binding = 5) writeonly buffer Pixels { float pixels[]; };

uniform uint width;
uniform uint height;
uniform uint firstY;   // pixel row of this dispatch's first row (large images go in bands)
uniform uint firstColumn;
uniform uint seedKey;

float rowMean(uint y, uint j)
{
    float sum = 0.0;
    for (uint i = sampleBegin[y]; i < sampleBegin[y + 1u]; ++i)
        sum += sampleWeights[i] * learnedValue(mix32(sampleRows[i] + seedKey), firstColumn + j);
    return sum;
}

void main()
{
    uint x = gl_GlobalInvocationID.x;
    uint y = firstY + gl_GlobalInvocationID.y;
    if (x >= width || y >= height)
        return;
    Span c = columns[x];
    float sum = 0.0;
    for (uint j = c.first; j < c.first + c.count; ++j)
        sum += rowMean(y, j);
    if (c.lowWeight > 0.0)
        sum += c.lowWeight * rowMean(y, c.first - 1u);
    if (c.highWeight > 0.0)
        sum += c.highWeight * rowMean(y, c.first + c.count);
    pixels[gl_GlobalInvocationID.y * width + x] = sum * c.scale;
}
