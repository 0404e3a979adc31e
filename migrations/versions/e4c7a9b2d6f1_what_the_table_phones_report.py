"""what the table phones hold that the laptop lacks

``tournament_phone_report`` keeps, per table link, the deals a table phone
reported because this laptop does not have its table, or refused some of its
deals (services.tournaments.phone_reports); the organiser's page lists them
until they are taken in or set aside.

Revision ID: e4c7a9b2d6f1
Revises: b6d2f8a4c0e7
Create Date: 2026-12-08 10:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'e4c7a9b2d6f1'
down_revision = 'b6d2f8a4c0e7'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'tournament_phone_report',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('token', sa.String(length=32), nullable=False),
        sa.Column('round_number', sa.Integer(), nullable=False),
        sa.Column('table_number', sa.Integer(), nullable=False),
        sa.Column('players', sa.JSON(), nullable=False),
        sa.Column('deals', sa.JSON(), nullable=False),
        sa.Column('why', sa.String(length=12), nullable=False),
        sa.Column('received_at', sa.DateTime(), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.Column('settled_at', sa.DateTime(), nullable=True),
        sa.Column('settled', sa.String(length=12), nullable=True),
        sa.ForeignKeyConstraint(
            ['tournament_id'], ['tournament.id'],
            name=op.f('fk_tournament_phone_report_tournament_id_tournament'),
        ),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_tournament_phone_report')),
        sa.UniqueConstraint('tournament_id', 'token', name='uq_phone_report_link'),
    )
    with op.batch_alter_table('tournament_phone_report', schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f('ix_tournament_phone_report_tournament_id'), ['tournament_id'], unique=False
        )


def downgrade():
    with op.batch_alter_table('tournament_phone_report', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_tournament_phone_report_tournament_id'))
    op.drop_table('tournament_phone_report')
