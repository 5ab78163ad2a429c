

"profile.bailout"() <{aten.unsqueezeindex = -1 : i9223372036854775807}> : () -> ()
// CHECK: error: 'profile.bailout' op index m
ust be non-negative, got -1
