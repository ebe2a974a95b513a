package export

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	st "github.com/singletable/singletable"
)

// Terraform: the table as an aws_dynamodb_table resource in Terraform's
// JSON configuration syntax, with auto scaling as aws_appautoscaling_target
// and aws_appautoscaling_policy resources. Argument names follow the AWS
// provider's documented argument lists:
//
//   - https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/dynamodb_table
//     (name, billing_mode, hash_key, range_key, read_capacity,
//     write_capacity, attribute {name, type}, global_secondary_index {name,
//     hash_key, range_key, projection_type, non_key_attributes,
//     read_capacity, write_capacity; key_schema {attribute_name,
//     key_type} for a multi-attribute key, hash_key and range_key holding
//     one attribute each}, local_secondary_index {name,
//     range_key, projection_type, non_key_attributes}, ttl
//     {attribute_name, enabled},
//     stream_enabled, stream_view_type, point_in_time_recovery {enabled},
//     deletion_protection_enabled, replica {region_name,
//     point_in_time_recovery})
//   - https://registry.terraform.io/providers/hashicorp/aws/latest/docs/resources/appautoscaling_target
//     and appautoscaling_policy (max_capacity, min_capacity, resource_id,
//     scalable_dimension, service_namespace; name, policy_type,
//     target_tracking_scaling_policy_configuration
//     {predefined_metric_specification {predefined_metric_type},
//     target_value})
//   - https://developer.hashicorp.com/terraform/language/syntax/json
//     (blocks as objects, repeated blocks as arrays of objects)

// TerraformJSON is a Terraform configuration (.tf.json) declaring the table.
func TerraformJSON(t *st.Table, o Options) ([]byte, error) {
	md, err := load("export.TerraformJSON", t, o)
	if err != nil {
		return nil, err
	}
	return toJSON(md.terraform())
}

func (md *model) terraform() obj {
	id := tfName(md.t.Name())
	in := md.create
	pk, sk := md.keyAttrs("")
	r := obj{{"name", md.name}, {"billing_mode", string(in.BillingMode)}, {"hash_key", pk.name}}
	if sk.name != "" {
		r = r.set("range_key", sk.name)
	}
	if p := in.ProvisionedThroughput; p != nil {
		r = r.set("read_capacity", aws.ToInt64(p.ReadCapacityUnits)).set("write_capacity", aws.ToInt64(p.WriteCapacityUnits))
	}
	var attrs []any
	for _, d := range in.AttributeDefinitions {
		attrs = append(attrs, obj{{"name", aws.ToString(d.AttributeName)}, {"type", string(d.AttributeType)}})
	}
	r = r.set("attribute", attrs)
	var gsis []any
	for _, g := range in.GlobalSecondaryIndexes {
		o := obj{{"name", aws.ToString(g.IndexName)}}
		if multiAttribute(g.KeySchema) {
			// hash_key and range_key hold one attribute each: a
			// multi-attribute key is the key_schema block (AWS provider
			// 6.x, the API's KeySchema), its elements in order.
			var ks []any
			for _, k := range g.KeySchema {
				ks = append(ks, obj{{"attribute_name", aws.ToString(k.AttributeName)}, {"key_type", string(k.KeyType)}})
			}
			o = o.set("key_schema", ks)
		} else {
			for _, k := range g.KeySchema {
				if k.KeyType == types.KeyTypeHash {
					o = o.set("hash_key", aws.ToString(k.AttributeName))
				} else {
					o = o.set("range_key", aws.ToString(k.AttributeName))
				}
			}
		}
		o = o.set("projection_type", string(g.Projection.ProjectionType))
		if len(g.Projection.NonKeyAttributes) > 0 {
			o = o.set("non_key_attributes", anys(g.Projection.NonKeyAttributes))
		}
		if p := g.ProvisionedThroughput; p != nil {
			o = o.set("read_capacity", aws.ToInt64(p.ReadCapacityUnits)).set("write_capacity", aws.ToInt64(p.WriteCapacityUnits))
		}
		gsis = append(gsis, o)
	}
	if len(gsis) > 0 {
		r = r.set("global_secondary_index", gsis)
	}
	var lsis []any
	for _, l := range in.LocalSecondaryIndexes {
		// The hash key is the table's: the block names only the range key.
		_, isk := md.keyAttrs(aws.ToString(l.IndexName))
		o := obj{{"name", aws.ToString(l.IndexName)}, {"range_key", isk.name}, {"projection_type", string(l.Projection.ProjectionType)}}
		if len(l.Projection.NonKeyAttributes) > 0 {
			o = o.set("non_key_attributes", anys(l.Projection.NonKeyAttributes))
		}
		lsis = append(lsis, o)
	}
	if len(lsis) > 0 {
		r = r.set("local_secondary_index", lsis)
	}
	if ttl := md.t.TTLAttribute(); ttl != "" {
		r = r.set("ttl", obj{{"attribute_name", ttl}, {"enabled", true}})
	}
	if s := md.t.Stream(); s != "" {
		r = r.set("stream_enabled", true).set("stream_view_type", string(s))
	}
	if md.o.PointInTimeRecovery {
		r = r.set("point_in_time_recovery", obj{{"enabled", true}})
	}
	if md.o.DeletionProtection {
		r = r.set("deletion_protection_enabled", true)
	}
	var replicas []any
	for _, region := range md.o.Replicas {
		rep := obj{{"region_name", region}}
		if md.o.PointInTimeRecovery {
			rep = rep.set("point_in_time_recovery", true)
		}
		replicas = append(replicas, rep)
	}
	if len(replicas) > 0 {
		r = r.set("replica", replicas)
	}
	resources := obj{{"aws_dynamodb_table", obj{{id, r}}}}
	if md.o.AutoScaling != nil {
		// Auto scaling changes the capacity: Terraform must not set it back.
		r = r.set("lifecycle", obj{{"ignore_changes", []any{"read_capacity", "write_capacity"}}})
		resources[0].v = obj{{id, r}}
		var targets, policies obj
		for _, s := range md.scalings(tfName, "table") {
			name := id + "_" + strings.ToLower(s.name())
			resource := "table/${aws_dynamodb_table." + id + ".name}"
			if s.index != "" {
				resource += "/index/" + s.index
			}
			targets = append(targets, field{name, obj{
				{"max_capacity", s.max}, {"min_capacity", s.min}, {"resource_id", resource},
				{"scalable_dimension", s.dimension}, {"service_namespace", "dynamodb"},
			}})
			target := "aws_appautoscaling_target." + name
			policies = append(policies, field{name, obj{
				{"name", md.name + "-" + s.policy()},
				{"policy_type", "TargetTrackingScaling"},
				{"resource_id", "${" + target + ".resource_id}"},
				{"scalable_dimension", "${" + target + ".scalable_dimension}"},
				{"service_namespace", "${" + target + ".service_namespace}"},
				{"target_tracking_scaling_policy_configuration", obj{
					{"predefined_metric_specification", obj{{"predefined_metric_type", s.metric}}},
					{"target_value", s.target},
				}},
			}})
		}
		resources = append(resources, field{"aws_appautoscaling_target", targets}, field{"aws_appautoscaling_policy", policies})
	}
	return obj{{"resource", resources}}
}
