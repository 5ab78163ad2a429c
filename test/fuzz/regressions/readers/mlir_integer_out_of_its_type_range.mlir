

%x = "prim.Constant"() <{value = dense<-9223372036854775809> : tensor<2xi32>}> : () -> !ts.tensor<i64>
// CHECK: error: 'prim.Constant' op value dense<1> : tensor<2xi32> is not a constant of type !ts.tensor<i64>

