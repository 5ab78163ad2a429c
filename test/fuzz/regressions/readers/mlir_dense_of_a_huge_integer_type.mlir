

%x = "prim.Constant"() <{value = dense<1> : tensor<2xi2147483647>}> : () -> !ts.tensor<i64>
// CHECK: error: 'prim.Constant' op value de