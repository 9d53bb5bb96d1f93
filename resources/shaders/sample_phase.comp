// Box-filtered viewport of a phase-table matrix in closed form (see core/backends/samplingplan.h): per
// column, whole rows a .. a+n-1 sum to D_n(s) sin(2 pi ((a + (n-1)/2) s + o)); cut edge rows
// add their covered fraction; the pixel averages its columns the same way.
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Phases { uvec4 phases[]; };   // window columns
layout(std430, binding = 1) readonly buffer Runs { uvec4 runs[]; };       // centre, span
layout(std430, binding = 2) readonly buffer Dirichlet { float dirichlet[]; };
layout(std430, binding = 3) readonly buffer Rows { Span rows[]; };
layout(std430, binding = 4) readonly buffer Columns { Span columns[]; };  // window-relative
layout(std430, binding = 5) writeonly buffer Pixels { float pixels[]; };

uniform uint width;
uniform uint height;
uniform uint firstY;   // pixel row of this dispatch's first row (large images go in bands)
uniform uint columnCount;

// The mean of window column j over the pixel row's footprint.
float rowMean(Span r, uint j)
{
    uvec4 ph = phases[j];
    uvec2 a = add64(mul64(ph.xy, r.first), ph.zw);
    uint t = r.run * columnCount + j;
    float sum = 0.0;
    if (r.count > 0u)
        sum = dirichlet[t] * sinOfPhase(add64(a, runs[t].xy));
    if (r.lowWeight > 0.0)
        sum += r.lowWeight * sinOfPhase(sub64(a, ph.xy));
    if (r.highWeight > 0.0)
        sum += r.highWeight * sinOfPhase(add64(a, runs[t].zw));
    return sum * r.scale;
}

void main()
{
    uint x = gl_GlobalInvocationID.x;
    uint y = firstY + gl_GlobalInvocationID.y;
    if (x >= width || y >= height)
        return;
    Span r = rows[y];
    Span c = columns[x];
    // Compensated (Kahan) sum: a zoomed-out pixel may average thousands of columns.
    precise float sum = 0.0;
    precise float lost = 0.0;
    for (uint j = c.first; j < c.first + c.count; ++j) {
        precise float term = rowMean(r, j) - lost;
        precise float next = sum + term;
        lost = (next - sum) - term;
        sum = next;
    }
    if (c.lowWeight > 0.0)
        sum += c.lowWeight * rowMean(r, c.first - 1u);
    if (c.highWeight > 0.0)
        sum += c.highWeight * rowMean(r, c.first + c.count);
    pixels[gl_GlobalInvocationID.y * width + x] = sum * c.scale;
}
